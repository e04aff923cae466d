import { randomUUID } from "node:crypto";
import type { BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { turnAt, type Scenario } from "./scenarios.js";
import { newToolCallId } from "../nodes/tool-calls.js";
import { TurnReplayChatModel } from "../nodes/model/turn-replay-model.js";

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
 * A chat model that replays a scenario's tool calls and reports token usage,
 * so the demo, the tests and Studio run with no API key and no network.
 */
export class ScriptedChatModel extends TurnReplayChatModel {
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

  protected reply(index: number, messages: BaseMessage[]): AIMessage {
    const turn = turnAt(this.scenario, index);
    const inputTokens =
      this.scenario.inputTokensPerTurn ?? Math.ceil(messages.reduce((n, m) => n + textLength(m), 0) / 4);
    const outputTokens = this.outputTokensPerTurn;
    return new AIMessage({
      // Providers give every completion an id; so does the scripted model.
      id: `scripted-${randomUUID()}`,
      content: turn.content ?? "",
      tool_calls: (turn.calls ?? []).map((c) => ({
        id: newToolCallId(),
        name: c.name,
        args: structuredClone(c.args),
        type: "tool_call" as const,
      })),
      usage_metadata: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      response_metadata: { model_name: `scripted:${this.scenario.name}` },
    });
  }
}
