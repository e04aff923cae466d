import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, toolErrorMiddleware, type AgentMiddleware } from "langchain";
import type { Verdict } from "../../../breaker/index.js";
import { loopBreakerMiddleware, type LoopBreakerMiddlewareOptions } from "../../../middleware/index.js";
import { SCENARIOS, ScriptedChatModel } from "../../../demo/index.js";
import { EXAMPLE_TOOLS } from "../../../tools/index.js";

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
  /** Thread persistence: an in-memory checkpointer by default (a given one lets two agents share threads); false for none. */
  checkpointer?: boolean | MemorySaver;
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
    ...(spec.checkpointer === false ? {} : { checkpointer: spec.checkpointer instanceof MemorySaver ? spec.checkpointer : new MemorySaver() }),
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

