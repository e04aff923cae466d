import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { AIMessage, AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";

/** How many times the model has answered since the latest user message. */
export function turnIndex(messages: readonly BaseMessage[]): number {
  const lastHuman = messages.findLastIndex((m) => m.getType() === "human");
  return messages.slice(lastHuman + 1).filter((m) => m.getType() === "ai").length;
}

/**
 * A chat model that answers by turn: the n-th call since the latest user
 * message gets `reply(n)`. It supports bindTools (recording the tools in its
 * config) but, like a runaway model, ignores what the tools and the breaker
 * said. The demo's scripted model (demo/) and the tests' replay models build
 * on it; the graph never imports it, and it stays when demo/ is deleted.
 */
export abstract class TurnReplayChatModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  /** The reply to the `index`-th model call of the current user turn. */
  protected abstract reply(index: number, messages: BaseMessage[]): AIMessage;

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<BaseChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<BaseChatModelCallOptions>);
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.reply(turnIndex(messages), messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}
