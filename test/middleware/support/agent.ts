import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type AIMessageFields, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, toolErrorMiddleware, type AgentMiddleware } from "langchain";
import type { Verdict } from "../../../breaker/index.js";
import { loopBreakerMiddleware, type LoopBreakerMiddlewareOptions } from "../../../middleware/index.js";
import { ScriptedChatModel } from "../../../nodes/model/scripted-chat-model.js";
import { TurnReplayChatModel } from "../../../nodes/model/turn-replay-model.js";
import { SCENARIOS } from "../../../nodes/model/scenarios.js";
import { EXAMPLE_TOOLS } from "../../../tools/index.js";
import { REPLAY_USAGE } from "../../support/graph-helpers.js";

/** What a test agent is made of; everything has a default. */
export interface TestAgentSpec {
  model?: BaseChatModel;
  tools?: StructuredToolInterface[];
  breaker?: LoopBreakerMiddlewareOptions;
  /**
   * Tool errors as error replies, as a createAgent user gets them with
   * toolErrorMiddleware: with any wrapToolCall middleware in the agent,
   * LangChain otherwise lets a throwing tool fail the run. Default true.
   */
  errorsAsReplies?: boolean;
  /** Middleware placed after the breaker. */
  more?: AgentMiddleware[];
  /** An in-memory checkpointer, so a thread spans several runs. Default true; without it, runs need no thread. */
  checkpointer?: boolean;
}

/** The scripted model replaying one of the shipped scenarios. */
export function scriptedModel(scenario: string): ScriptedChatModel {
  return new ScriptedChatModel({ scenario: SCENARIOS.get(scenario)! });
}

/** createAgent with the breaker middleware and an in-memory checkpointer, so a thread spans several runs. */
export function testAgent(spec: TestAgentSpec = {}) {
  const middleware = [
    loopBreakerMiddleware(spec.breaker),
    ...(spec.errorsAsReplies === false ? [] : [toolErrorMiddleware({ onError: (e) => `Error: ${(e as Error).message}` })]),
    ...(spec.more ?? []),
  ];
  return createAgent({
    model: spec.model ?? scriptedModel("clean"),
    tools: spec.tools ?? EXAMPLE_TOOLS,
    middleware,
    ...(spec.checkpointer === false ? {} : { checkpointer: new MemorySaver() }),
  });
}

/** The final state of a run, in the fields the tests read. */
export interface AgentRun {
  messages: BaseMessage[];
  breakerSessionId: string;
  breakerVerdicts: Verdict[];
  breakerTripped: boolean;
}

/** One user turn on a thread. A loop the breaker misses ends in GraphRecursionError. */
export async function runAgent(
  agent: ReturnType<typeof testAgent>,
  content: string,
  options: { thread?: string; streamCustom?: unknown[] } = {},
): Promise<AgentRun> {
  const config = { ...(options.thread ? { configurable: { thread_id: options.thread } } : {}), recursionLimit: 100 };
  if (!options.streamCustom) return (await agent.invoke({ messages: [new HumanMessage(content)] }, config)) as unknown as AgentRun;
  let last: AgentRun | undefined;
  const stream = await agent.stream({ messages: [new HumanMessage(content)] }, { ...config, streamMode: ["values", "custom"] });
  for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
    if (mode === "custom") options.streamCustom.push(chunk);
    else last = chunk as AgentRun;
  }
  if (!last) throw new Error("The run produced no state.");
  return last;
}

/**
 * A replay model that plays a different script in each user turn of a
 * thread: `runs[k][n]` answers the n-th model call of the k-th user turn.
 */
export class PerTurnReplayModel extends TurnReplayChatModel {
  /** Every prompt the model was called with, oldest first. */
  readonly prompts: BaseMessage[][] = [];

  constructor(
    private readonly runs: readonly (readonly AIMessageFields[])[],
    private readonly answer = "Final answer.",
  ) {
    super({});
  }

  _llmType(): string {
    return "per-turn-replay";
  }

  protected reply(index: number, messages: BaseMessage[]): AIMessage {
    this.prompts.push(messages);
    const turn = messages.filter((m) => m.getType() === "human").length - 1;
    const fields = this.runs[turn]?.[index] ?? { content: this.answer };
    return new AIMessage({ content: "", usage_metadata: REPLAY_USAGE, ...structuredClone(fields) });
  }
}
