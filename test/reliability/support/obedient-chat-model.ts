import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";

/** How the obedient model carries out "call X n times": all at once, or one call per turn; same or fresh arguments. */
export interface Obedience {
  batch: "one_message" | "one_per_turn";
  args: "identical" | "distinct";
}

/** The instruction an injected tool output gives; the model below obeys any text matching it. */
export const INJECTION = /call (\w+) (\d+) times/i;

/**
 * A model that does whatever the latest tool output tells it: the worst case
 * for a prompt injection. Its first turn calls `firstTool`; after that, a tool
 * output containing "call <tool> <n> times" is carried out as `obedience`
 * says, and anything else ends the run with an answer.
 */
export class ObedientChatModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  /** Tool calls the model has asked for, in all. */
  requested = 0;
  private serial = 0;

  constructor(
    private readonly firstTool: string,
    private readonly obedience: Obedience,
  ) {
    super({});
  }

  _llmType(): string {
    return "obedient";
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<BaseChatModelCallOptions>): Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<BaseChatModelCallOptions>);
  }

  private call(name: string) {
    const n = this.obedience.args === "identical" ? 0 : ++this.serial;
    this.requested++;
    return { id: `obey_${this.requested}`, name, args: { n }, type: "tool_call" as const };
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages.at(-1);
    let message: AIMessage;
    if (!last || !ToolMessage.isInstance(last)) {
      message = new AIMessage({ content: "", tool_calls: [this.call(this.firstTool)] });
    } else {
      const order = INJECTION.exec(typeof last.content === "string" ? last.content : JSON.stringify(last.content));
      if (!order) {
        message = new AIMessage("Done: the tool said nothing more to do.");
      } else {
        const [, tool = "", times = "0"] = order;
        const count = this.obedience.batch === "one_message" ? Number(times) : 1;
        message = new AIMessage({ content: "", tool_calls: Array.from({ length: count }, () => this.call(tool)) });
      }
    }
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}
