import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Verdict } from "../breaker/index.js";
import { checkCalls } from "./check-calls.js";
import { circuitFrame, decisiveFinding } from "./circuit-frame.js";
import type { GuardedState, ResolveRun } from "./run-settings.js";
import { lastAIMessage, pendingCalls, type PendingCall } from "./tool-calls.js";

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

/** Where the graph's limits are raised; other hosts of the breaker (the createAgent middleware) name their own place. */
export const RAISE_LIMITS_IN_CONTEXT = "the breaker limits in the run's context (maxIdenticalCalls, maxCallsPerRun)";

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
export function fallbackAnswer(trip: Verdict, found: readonly ToolMessage[], raiseLimits = RAISE_LIMITS_IN_CONTEXT): string {
  const finding = decisiveFinding(trip);
  const scope = finding?.scope ?? "run";
  const steps = finding?.steps.length ? ` (steps ${finding.steps.join(", ")})` : "";
  const results = found.length
    ? found.map((m) => `- ${m.name ?? "tool"}: ${preview(m)}`).join("\n")
    : "- No tool call in this turn returned a usable result.";
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

/** A CIRCUIT_BREAKER_TRIPPED reply to every call of a refused batch; none of them ran. */
export function refusalReplies(calls: readonly PendingCall[], verdicts: readonly Verdict[]): ToolMessage[] {
  const trip = verdicts.find((v) => !v.allowed) ?? verdicts[0]!;
  return calls.map(
    (call, i) =>
      new ToolMessage({
        tool_call_id: call.id,
        name: call.name,
        status: "error",
        content: circuitFrame(call, verdicts[i]!, trip),
        artifact: { circuit: verdicts[i] },
      }),
  );
}

/**
 * The `circuit_fallback` node: answers every pending call with a
 * CIRCUIT_BREAKER_TRIPPED frame (an unanswered tool call breaks an
 * OpenAI-style thread for good), then ends the run with an explanation.
 */
export function createCircuitFallbackNode(resolve: ResolveRun) {
  return async function circuitFallback(state: GuardedState, config: LangGraphRunnableConfig) {
    const message = lastAIMessage(state.messages);
    if (!message) return { halted: true };
    const run = resolve(state, config);
    const verdicts = await checkCalls(run, state.messages);
    const trip = verdicts.find((v) => !v.allowed) ?? verdicts[0]!;
    const replies = refusalReplies(pendingCalls(message), verdicts);
    config.writer?.({ type: "breaker_verdict", sessionId: run.sessionId, verdicts, halted: true });
    const answer = new AIMessage({ content: fallbackAnswer(trip, partialResults(state.messages)) });
    return { messages: [...replies, answer], verdicts, halted: true };
  };
}
