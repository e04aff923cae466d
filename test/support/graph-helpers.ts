import {
  AIMessage,
  HumanMessage,
  ToolMessage,
  type AIMessageFields,
  type BaseMessage,
} from "@langchain/core/messages";
import { expect } from "vitest";
import { MemorySaver, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { MemoryStore, createBreaker, type BreakerStore, type SessionSnapshot, type Verdict } from "../../breaker/index.js";
import { buildGraph } from "../../graphs/graph.js";
import { createRunResolver, type GraphDeps } from "../../graphs/run-resolver.js";
import type { ResolveRun } from "../../nodes/run-settings.js";
import type { GuardedState } from "../../nodes/state.js";
import { checkCalls } from "../../nodes/check-calls.js";
import { normalizeToolCalls } from "../../nodes/tool-calls.js";
import { ADVISORY_TAG } from "../../nodes/tools.js";
import { TurnReplayChatModel } from "../../nodes/model/turn-replay-model.js";
import { EXAMPLE_TOOLS } from "../../tools/index.js";

/** Token usage every replayed model turn reports, so usage accounting can be checked exactly. */
export const REPLAY_USAGE = { input_tokens: 100, output_tokens: 10, total_tokens: 110 };

/**
 * A chat model that answers the n-th model call after the latest user message
 * with `turns[n]`, then with `answer`: lets a test put any AIMessage (missing
 * or duplicate ids, invalid_tool_calls, unknown tools) in front of the graph.
 */
export class ReplayChatModel extends TurnReplayChatModel {
  /** Every prompt the model was called with, oldest first. */
  readonly prompts: BaseMessage[][] = [];

  constructor(
    private readonly turns: readonly AIMessageFields[],
    private readonly answer = "Final answer.",
  ) {
    super({});
  }

  _llmType(): string {
    return "replay";
  }

  protected reply(index: number, messages: BaseMessage[]): AIMessage {
    this.prompts.push(messages);
    const fields = this.turns[index] ?? { content: this.answer };
    // Cloned: the agent node normalizes what it gets, and a replay must not see that.
    return new AIMessage({ content: "", usage_metadata: REPLAY_USAGE, ...structuredClone(fields) });
  }
}

/** One model turn asking for the given calls, ids included. */
export function callsTurn(...calls: { id?: string; name: string; args: Record<string, unknown> }[]): AIMessageFields {
  return { content: "", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })) };
}

/**
 * Everything wrong with how tool calls are answered, as OpenAI-style APIs
 * require it: each AIMessage with k tool calls is followed directly by k
 * ToolMessages answering exactly those ids, once each; no other ToolMessage.
 * Empty when the history is valid.
 */
export function toolReplyProblems(messages: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (ToolMessage.isInstance(message)) {
      problems.push(`ToolMessage ${message.tool_call_id} at ${i} answers no call of the AIMessage before it`);
      continue;
    }
    if (!AIMessage.isInstance(message) || !message.tool_calls?.length) continue;
    const wanted = message.tool_calls.map((c) => c.id ?? "(no id)");
    const replies = messages.slice(i + 1, i + 1 + wanted.length);
    const got = replies.filter((m) => ToolMessage.isInstance(m)).map((m) => (m as ToolMessage).tool_call_id);
    if (got.length !== wanted.length || [...got].sort().join() !== [...wanted].sort().join()) {
      problems.push(`AIMessage at ${i} asked for [${wanted.join(", ")}] and got replies [${got.join(", ")}]`);
    }
    if (new Set(wanted).size !== wanted.length) problems.push(`AIMessage at ${i} repeats a tool_call id`);
    i += got.length;
  }
  return problems;
}

/** The ToolMessages of a history. */
export function toolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

/** A ToolMessage's text. */
export function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

/** The parsed CIRCUIT_BREAKER_TRIPPED frame of a refused call's ToolMessage. */
export function frameOf(message: ToolMessage): Record<string, unknown> {
  return JSON.parse(textOf(message)) as Record<string, unknown>;
}

/**
 * What happened to each tool call, in order: "ran", "ran+advisory" (HALF_OPEN)
 * or "refused" (with `detectors`, "refused:<detector>").
 */
export function trajectory(messages: readonly BaseMessage[], { detectors = false } = {}): string[] {
  return toolMessages(messages).map((m) => {
    const text = textOf(m);
    if (text.includes("CIRCUIT_BREAKER_TRIPPED")) {
      const frame = frameOf(m);
      expect(frame.ran).toBe(false);
      return detectors ? `refused:${String(frame.detector)}` : "refused";
    }
    return text.includes(ADVISORY_TAG) ? "ran+advisory" : "ran";
  });
}

/** The messages after the latest user message. */
export function lastTurn(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.slice(messages.findLastIndex((m) => m.getType() === "human") + 1);
}

/** True when some message carries the breaker's trip frame. */
export function mentionsTrip(messages: readonly BaseMessage[]): boolean {
  return messages.some((m) => textOf(m).includes("CIRCUIT_BREAKER_TRIPPED"));
}

/** The guarded graph over the example tools and a fresh MemoryStore (unless given), plus that store. */
export function testGraph(deps: GraphDeps = {}) {
  const store = deps.breaker?.store ?? deps.store ?? new MemoryStore();
  return { store, graph: buildGraph({ log: () => {}, ...deps, store }) };
}

/** `testGraph` with an in-memory checkpointer, so runs on one thread_id continue one conversation. */
export function threadedGraph(deps: GraphDeps = {}) {
  return testGraph({ checkpointer: new MemorySaver(), ...deps });
}

/** A run's result: the nodes in the order they ran, and the final state. */
export interface TurnResult {
  nodes: string[];
  state: GuardedState;
}

/** Run one user turn with the graph's own recursion limit, recording which nodes ran. */
export async function runTurn(
  graph: ReturnType<typeof buildGraph>,
  content: string,
  options: { context?: Record<string, unknown>; thread?: string; recursionLimit?: number } = {},
): Promise<TurnResult> {
  const nodes: string[] = [];
  let state: GuardedState | undefined;
  const stream = await graph.stream(userTurn(content), {
    // The context type marks every knob required; the graph fills defaults itself.
    context: (options.context ?? {}) as never,
    ...(options.thread ? { configurable: { thread_id: options.thread } } : {}),
    ...(options.recursionLimit ? { recursionLimit: options.recursionLimit } : {}),
    streamMode: ["updates", "values"],
  });
  for await (const [mode, chunk] of stream) {
    if (mode === "updates") nodes.push(...Object.keys(chunk as object));
    else state = chunk as GuardedState;
  }
  if (!state) throw new Error("The run produced no state.");
  return { nodes, state };
}

/** The input of one user turn. */
export function userTurn(content: string): { messages: BaseMessage[] } {
  return { messages: [new HumanMessage(content)] };
}

/** Graph state for calling a node or the router directly. */
export function stateWith(messages: BaseMessage[], sessionId = "", verdicts: Verdict[] = []): GuardedState {
  return { messages, sessionId, halted: false, verdicts, outOfSteps: false };
}

/** The breaker session of a thread. */
export function threadSession(threadId: string): string {
  return `thread:${threadId}`;
}

/** A run config with a thread and a context, as LangGraph hands it to nodes. */
export function configWith(context: Record<string, unknown> = {}, threadId?: string): LangGraphRunnableConfig {
  return { context, ...(threadId ? { configurable: { thread_id: threadId } } : {}) } as LangGraphRunnableConfig;
}

/** A resolver over the example tools and a fresh MemoryStore, plus that store. */
export function testResolver(deps: GraphDeps = {}) {
  const store = deps.store ?? new MemoryStore();
  return { store, resolve: createRunResolver({ tools: EXAMPLE_TOOLS, log: () => {}, ...deps, store }).resolve };
}

/**
 * The state after an agent step that asked for `message`'s calls, as the
 * graph has it: the message (given an id) appended and the breaker's
 * verdicts on it written. Runs the real check of the agent node.
 */
export async function checkedState(resolve: ResolveRun, history: BaseMessage[], message: AIMessage, config: LangGraphRunnableConfig): Promise<GuardedState> {
  const messages = [...history, normalizeToolCalls(message, history)];
  const verdicts = await checkCalls(resolve(stateWith(messages), config), messages);
  return stateWith(messages, "", verdicts);
}

/** What the breaker knows about a session in a store. */
export function inspectSession(store: BreakerStore, sessionId: string): Promise<SessionSnapshot> {
  return createBreaker({ store }).inspect(sessionId);
}
