import { isCommand, type Command, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { summarizeOutcome, type ToolOutcome, type Verdict } from "../breaker/index.js";
import { checkCalls } from "./check-calls.js";
import { refusalReplies } from "./circuit-fallback.js";
import type { ResolveRun } from "./run-settings.js";
import type { GuardedState } from "./state.js";
import { RunCancellation, runTool } from "./run-tool.js";
import { lastAIMessage, pendingCalls, verdictsFor } from "./tool-calls.js";

export { ADVISORY_TAG } from "./run-tool.js";

/** A plain update, or (when a tool returned a Command) the updates and Commands in call order, as LangGraph's ToolNode returns them. */
export type ToolsUpdate = { messages?: BaseMessage[]; verdicts?: Verdict[] } | ({ messages: BaseMessage[] } | { verdicts: Verdict[] } | Command)[];

/**
 * The reply with the outcome the breaker was told in its artifact: a reader
 * (Studio, the demo) sees how the tool's result was classified, which the
 * text cannot show once a HALF_OPEN advisory is appended to it.
 */
function withOutcome(reply: ToolMessage | Command, outcome: ToolOutcome): ToolMessage | Command {
  if (ToolMessage.isInstance(reply)) reply.artifact = { ...(reply.artifact as object), outcome };
  return reply;
}

/**
 * The `tools` node: runs the calls the agent step approved, in parallel,
 * reports their outcomes to the breaker in one batch, and answers every call.
 * The verdicts come from the state; a message nobody checked (edited into the
 * thread) is checked here first, and a refused batch runs nothing.
 */
export function createToolsNode(resolve: ResolveRun) {
  return async function tools(state: GuardedState, config: LangGraphRunnableConfig): Promise<ToolsUpdate> {
    const message = lastAIMessage(state.messages);
    const calls = message ? pendingCalls(message) : [];
    if (!message || calls.length === 0) return {};
    const run = resolve(state, config);
    const known = verdictsFor(message, state.verdicts);
    const verdicts = known ?? (await checkCalls(run, state.messages));
    const checked = known ? {} : { verdicts };
    if (verdicts.some((v) => !v.allowed)) return { messages: refusalReplies(calls, verdicts), ...checked };

    const ctx = { tools: run.tools, redact: run.redact, state, config, cancellation: new RunCancellation(config.signal) };
    const runs = await Promise.all(calls.map((call, i) => runTool(call, verdicts[i], ctx)));
    // The call's own arguments go with its outcome: a result that only echoes them reads the same, as offline.
    const outcomes = runs.map((r, i) => summarizeOutcome({ ...r.outcome, args: calls[i]!.args, tool: calls[i]!.name }));
    await run.breaker.completeBatch(run.sessionId, outcomes.map((outcome, i) => ({ callId: verdicts[i]!.callId, outcome })));
    const replies = runs.map((r, i) => withOutcome(r.reply, outcomes[i]!));
    if (!replies.some(isCommand)) return { messages: replies as BaseMessage[], ...checked };
    return [...replies.map((r) => (isCommand(r) ? r : { messages: [r] })), ...(known ? [] : [checked as { verdicts: Verdict[] }])];
  };
}
