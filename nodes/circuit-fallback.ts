import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Verdict } from "../breaker/index.js";
import { checkCalls } from "./check-calls.js";
import { circuitFrame, decisiveFinding } from "./circuit-frame.js";
import type { GuardedState, ResolveRun } from "./run-settings.js";
import { lastAIMessage, pendingCalls } from "./tool-calls.js";

const MAX_RESULTS_SHOWN = 5;
const RESULT_PREVIEW_CHARS = 240;

function preview(message: BaseMessage): string {
  const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > RESULT_PREVIEW_CHARS ? `${flat.slice(0, RESULT_PREVIEW_CHARS)}…` : flat;
}

/** Successful tool results of the current user turn, newest last. */
function partialResults(messages: readonly BaseMessage[]): ToolMessage[] {
  const turnStart = messages.findLastIndex((m) => m.getType() === "human");
  return messages
    .slice(turnStart + 1)
    .filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.status !== "error")
    .slice(-MAX_RESULTS_SHOWN);
}

/** The final answer after a trip: what tripped, why, on which steps, what was found, what next. */
export function fallbackAnswer(trip: Verdict, found: readonly ToolMessage[]): string {
  const finding = decisiveFinding(trip);
  const steps = finding?.steps.length ? ` (steps ${finding.steps.join(", ")})` : "";
  const results = found.length
    ? found.map((m) => `- ${m.name ?? "tool"}: ${preview(m)}`).join("\n")
    : "- Nothing usable: every call in this turn failed or came back empty.";
  return [
    "I stopped this task because the circuit breaker tripped on a repeating tool call.",
    "",
    `**What tripped:** ${finding?.detector ?? "circuit_breaker"} on ${trip.tool}${steps}. ${finding?.message ?? ""}`.trim(),
    "",
    "**What I found before stopping:**",
    results,
    "",
    "**How to proceed:** send a new message with more precise input (an exact name or id, a different query), " +
      "and I will start over with a fresh loop window. If the repetition was intended, raise the breaker limits " +
      "in the run's context (maxIdenticalCalls, maxCallsPerRun).",
  ].join("\n");
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
    const verdicts = await checkCalls(run, message);
    const trip = verdicts.find((v) => !v.allowed) ?? verdicts[0]!;
    const replies = pendingCalls(message).map(
      (call, i) =>
        new ToolMessage({
          tool_call_id: call.id,
          name: call.name,
          status: "error",
          content: circuitFrame(call, verdicts[i]!, trip),
          artifact: { circuit: verdicts[i] },
        }),
    );
    config.writer?.({ type: "breaker_verdict", sessionId: run.sessionId, verdicts, halted: true });
    const answer = new AIMessage({ content: fallbackAnswer(trip, partialResults(state.messages)) });
    return { messages: [...replies, answer], verdicts, halted: true };
  };
}
