import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { decisiveFinding, type Verdict } from "../breaker/index.js";
import { checkCalls } from "./check-calls.js";
import { circuitFrame } from "./circuit-frame.js";
import type { ResolveRun } from "./run-settings.js";
import type { GuardedState } from "./state.js";
import { BREAKER_ANSWER, lastAIMessage, pendingCalls, verdictsFor, type PendingCall } from "./tool-calls.js";
import { traceTrip } from "./trip-trace.js";
import { emitVerdicts } from "./verdict-event.js";

const MAX_RESULTS_SHOWN = 5;
const RESULT_PREVIEW_CHARS = 240;

function preview(message: BaseMessage): string {
  const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > RESULT_PREVIEW_CHARS ? `${flat.slice(0, RESULT_PREVIEW_CHARS)}…` : flat;
}

/** Successful tool results of the current user turn, newest last. */
export function partialResults(messages: readonly BaseMessage[]): ToolMessage[] {
  const turnStart = messages.findLastIndex((m) => m.getType() === "human");
  return messages
    .slice(turnStart + 1)
    .filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.status !== "error")
    .slice(-MAX_RESULTS_SHOWN);
}

function foundList(found: readonly ToolMessage[]): string {
  return found.length
    ? found.map((m) => `- ${m.name ?? "tool"}: ${preview(m)}`).join("\n")
    : "- No tool call in this turn returned a usable result.";
}

/**
 * Where the graph's limits are raised: by the operator, since a run's context
 * may only tighten them. Other hosts of the breaker (the createAgent
 * middleware) name their own place.
 */
export const RAISE_LIMITS_IN_DEPLOYMENT =
  "the deployment's limits (an operator sets BREAKER_MAX_IDENTICAL_CALLS, BREAKER_MAX_CALLS_PER_RUN or the policy file; a run's context can only tighten them)";

const NEXT_STEP = {
  run: (raiseLimits: string) =>
    "send a new message with more precise input (an exact name or id, a different query), and I will start " +
    `over with a fresh loop window. If the repetition was intended, raise ${raiseLimits}.`,
  session: () =>
    "this limit holds for the whole session, so a new message alone will not lift it. Wait for the time " +
    "window to pass, or have an operator reset the session (`npm run breaker -- reset <session>`) or raise " +
    "the limit in the breaker policy.",
} as const;

/** The final answer after a trip: what tripped, why, on which steps, what was found, what next. */
export function fallbackAnswer(trip: Verdict, found: readonly ToolMessage[], raiseLimits = RAISE_LIMITS_IN_DEPLOYMENT): string {
  const finding = decisiveFinding(trip);
  const scope = finding?.scope ?? "run";
  const steps = finding?.steps.length ? ` (steps ${finding.steps.join(", ")})` : "";
  const results = foundList(found);
  return [
    scope === "run"
      ? "I stopped this task because the circuit breaker caught my tool calls going in circles."
      : "I stopped this task because this session reached a circuit breaker limit.",
    "",
    `**What tripped:** ${finding?.detector ?? "circuit_breaker"} on ${trip.tool}${steps}. ${finding?.message ?? ""}`.trim(),
    "",
    "**What I found before stopping:**",
    results,
    "",
    `**How to proceed:** ${NEXT_STEP[scope](raiseLimits)}`,
  ].join("\n");
}

/** An error reply to every call of a batch none of which ran; `frame` writes each one's JSON. */
function unrunReplies(calls: readonly PendingCall[], verdicts: readonly (Verdict | undefined)[], frame: (call: PendingCall, i: number) => string): ToolMessage[] {
  return calls.map(
    (call, i) => new ToolMessage({ tool_call_id: call.id, name: call.name, status: "error", content: frame(call, i), artifact: { circuit: verdicts[i] } }),
  );
}

/** A CIRCUIT_BREAKER_TRIPPED reply to every call of a refused batch; none of them ran. `next` tells the model what now. */
export function refusalReplies(calls: readonly PendingCall[], verdicts: readonly Verdict[], next?: string): ToolMessage[] {
  const trip = verdicts.find((v) => !v.allowed) ?? verdicts[0]!;
  return unrunReplies(calls, verdicts, (call, i) => circuitFrame(call, verdicts[i]!, trip, next));
}

/** The error code of a call left unrun because the run's graph steps ran out. */
export const STEP_LIMIT = "STEP_LIMIT_REACHED";

/** A STEP_LIMIT_REACHED reply to every call of the last batch; none of them ran. */
export function stepLimitReplies(calls: readonly PendingCall[], verdicts: readonly (Verdict | undefined)[], recursionLimit: number | undefined): ToolMessage[] {
  const limit = recursionLimit === undefined ? "its recursion limit" : `its recursion limit of ${recursionLimit} steps`;
  return unrunReplies(calls, verdicts, (call) =>
    JSON.stringify({
      error: STEP_LIMIT,
      tool: call.name,
      tool_call_id: call.id,
      ran: false,
      reason: `Not run: this run is about to reach ${limit}.`,
      next: "Do not call tools again in this turn. Answer with what you already have.",
    }),
  );
}

/** The final answer when the run's graph steps ran out before the breaker's limits did. */
export function stepLimitAnswer(recursionLimit: number | undefined, found: readonly ToolMessage[]): string {
  return [
    `I stopped this task because it was about to reach its step limit${recursionLimit === undefined ? "" : ` (recursion limit ${recursionLimit})`} while still calling tools.`,
    "",
    "**What I found before stopping:**",
    foundList(found),
    "",
    "**How to proceed:** send a new message to continue (a new message gets a fresh step budget), or run it again with a higher recursion limit.",
  ].join("\n");
}

/**
 * The `circuit_fallback` node: answers every pending call with an error
 * ToolMessage (an unanswered tool call breaks an OpenAI-style thread for
 * good), then ends the run with an explanation: the breaker's trip, or the
 * step budget about to run out. It reads the verdicts the agent step wrote;
 * only a message nobody checked is checked here.
 */
export function createCircuitFallbackNode(resolve: ResolveRun) {
  return async function circuitFallback(state: GuardedState, config: LangGraphRunnableConfig) {
    const message = lastAIMessage(state.messages);
    if (!message) return { halted: true };
    const calls = pendingCalls(message);
    const known = verdictsFor(message, state.verdicts);
    const run = known ? undefined : resolve(state, config);
    const verdicts = known ?? (run ? await checkCalls(run, state.messages) : []);
    const trip = verdicts.find((v) => !v.allowed);
    const found = partialResults(state.messages);
    const replies = trip ? refusalReplies(calls, verdicts) : stepLimitReplies(calls, verdicts, config.recursionLimit);
    const answer = new AIMessage({
      content: trip ? fallbackAnswer(trip, found) : stepLimitAnswer(config.recursionLimit, found),
      // The breaker's answer, not the model's: the same message sent after it still retries the stopped run.
      response_metadata: { [BREAKER_ANSWER]: true },
    });
    const sessionId = state.sessionId || run?.sessionId || "";
    emitVerdicts(config, sessionId, verdicts, true);
    // Tripped runs can be found in LangSmith by this child's tag and metadata.
    if (trip) await traceTrip(sessionId, trip, "end", config);
    return { messages: [...replies, answer], halted: true, ...(known ? {} : { verdicts }) };
  };
}
