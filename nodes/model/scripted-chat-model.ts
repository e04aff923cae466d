import { randomUUID } from "node:crypto";
import type { BaseChatModelParams, BindToolsInput } from "@langchain/core/language_models/chat_models";
import { BaseChatModel, type BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import { AIMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { turnAt, type Scenario } from "./scenarios.js";

/** Options of the scripted model. */
export interface ScriptedChatModelInput extends BaseChatModelParams {
  scenario: Scenario;
  /** Output tokens reported per turn. Default 40. */
  outputTokensPerTurn?: number;
}

function textLength(message: BaseMessage): number {
  const { content } = message;
  return typeof content === "string" ? content.length : JSON.stringify(content ?? "").length;
}

/**
 * A chat model that replays a scenario's tool calls, so the demo, the tests
 * and Studio run with no API key and no network. Like a runaway model, it
 * ignores what the tools and the breaker tell it; it only counts how many
 * times it has answered since the last user message.
 */
export class ScriptedChatModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  readonly scenario: Scenario;
  readonly outputTokensPerTurn: number;

  constructor(fields: ScriptedChatModelInput) {
    super(fields);
    this.scenario = fields.scenario;
    this.outputTokensPerTurn = fields.outputTokensPerTurn ?? 40;
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<BaseChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<BaseChatModelCallOptions>);
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const lastHuman = messages.findLastIndex((m) => m.getType() === "human");
    const index = messages.slice(lastHuman + 1).filter((m) => m.getType() === "ai").length;
    const turn = turnAt(this.scenario, index);
    const inputTokens =
      this.scenario.inputTokensPerTurn ?? Math.ceil(messages.reduce((n, m) => n + textLength(m), 0) / 4);
    const outputTokens = this.outputTokensPerTurn;
    const message = new AIMessage({
      content: turn.content ?? "",
      tool_calls: (turn.calls ?? []).map((c) => ({
        id: `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
        name: c.name,
        args: structuredClone(c.args),
        type: "tool_call" as const,
      })),
      usage_metadata: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      response_metadata: { model_name: `scripted:${this.scenario.name}` },
    });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}
