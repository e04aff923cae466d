import { randomUUID } from "node:crypto";
import { HumanMessage } from "@langchain/core/messages";
import { Command, interrupt, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { decisiveFinding, type Verdict } from "../breaker/index.js";
import { refusalReplies } from "./circuit-fallback.js";
import { circuitOpenRequest, type CircuitOpenRequest } from "./circuit-open-request.js";
import { isRefused, parseReviewDecision, type ReviewDecision } from "./review-decision.js";
import type { ResolveRun } from "./run-settings.js";
import type { GuardedState } from "./state.js";
import { lastAIMessage, pendingCalls, verdictsFor } from "./tool-calls.js";
import { traceTrip } from "./trip-trace.js";

/** What a refused call's reply tells the model when a person lets the run go on. */
export const PERSON_CONTINUED = "A person reviewed this stop and let the task go on: read their message next, and change your approach rather than repeat these calls.";

/**
 * The message that carries a person's decision to the model. It is a user
 * message that asks for something new (it names the trip's step, which no
 * earlier message did), so the run window moves to it exactly as for any new
 * user turn: the loop detectors start afresh, session budgets carry over.
 */
export function continueMessage(trip: Verdict, hint: string): HumanMessage {
  const detector = decisiveFinding(trip)?.detector ?? "circuit_breaker";
  const what = `A person reviewed the circuit breaker's stop (${detector} on ${trip.tool}, step ${trip.step}) and lets the task go on.`;
  return new HumanMessage({ id: randomUUID(), content: hint ? `${what} Their hint: ${hint}` : what });
}

/**
 * Ask until the answer is usable: a refused value raises the interrupt again
 * with the reason, so the thread stays paused and the next resume is read.
 * LangGraph answers each interrupt() of a re-run node with the value it got
 * the first time, so this loop replays the refused answers and waits at the
 * first unanswered one.
 */
function askPerson(request: CircuitOpenRequest): ReviewDecision {
  let ask = request;
  for (;;) {
    const decision = parseReviewDecision(interrupt(ask));
    if (!isRefused(decision)) return decision;
    ask = { ...request, error: decision };
  }
}

/**
 * The `circuit_review` node (context `onTrip: "ask"`): pauses the run with a
 * `circuit_open` interrupt. `{ action: "stop" }` ends it through
 * circuit_fallback, as without a person; `{ action: "continue", hint }`
 * answers every pending call (none ran) and hands the model the person's
 * message, in a fresh run window. Everything before the interrupt reads the
 * state only (and traces the trip): LangGraph runs the node again on resume.
 */
export function createCircuitReviewNode(resolve: ResolveRun) {
  return async function circuitReview(state: GuardedState, config: LangGraphRunnableConfig): Promise<Command> {
    const message = lastAIMessage(state.messages);
    const verdicts = message && verdictsFor(message, state.verdicts);
    const trip = verdicts?.find((v) => !v.allowed);
    if (!message || !verdicts || !trip) return new Command({ goto: "circuit_fallback" });
    const calls = pendingCalls(message);
    const run = resolve(state, config);
    const sessionId = state.sessionId || run.sessionId;
    // Traced on every pass, the one before the pause and the one a resume makes: each run's trace shows the trip.
    await traceTrip(sessionId, trip, "ask", config);
    const decision = askPerson(circuitOpenRequest(sessionId, calls, verdicts, run.redact));
    if (decision.action === "stop") return new Command({ goto: "circuit_fallback" });
    return new Command({
      goto: "agent",
      update: { messages: [...refusalReplies(calls, verdicts, PERSON_CONTINUED), continueMessage(trip, run.redact.text(decision.hint))] },
    });
  };
}
