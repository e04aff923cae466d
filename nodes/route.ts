import { END } from "@langchain/langgraph";
import type { GuardedState } from "./state.js";
import { lastAIMessage, verdictsFor } from "./tool-calls.js";

/** What a trip does, as a run's context may choose it: end the run with an answer, or ask a person. */
export const ON_TRIP_CHOICES = ["end", "ask"] as const;

/** What a trip does: "end" answers and ends the run; "ask" pauses it (interrupt) for a person to stop or continue. */
export type OnTrip = (typeof ON_TRIP_CHOICES)[number];

/** Where the router can send a step. */
export type Route = "tools" | "circuit_fallback" | "circuit_review" | typeof END;

/**
 * The conditional edge after `agent`, a pure function of the state and the
 * run's `onTrip`: no tool calls ends the run; a refusal among the verdicts
 * the agent step wrote ends it through `circuit_fallback`, or with "ask"
 * goes to `circuit_review` for a person to decide; a step budget about to
 * run out always ends through `circuit_fallback` (no person can lift it);
 * anything else goes to `tools` (which checks a message nobody checked, one
 * edited into the thread, before running any of it). The route is
 * checkpointed with the agent step, so a run resumed later, with whatever
 * context, goes on the same way.
 */
export function route(state: Pick<GuardedState, "messages" | "verdicts" | "outOfSteps">, onTrip: OnTrip = "end"): Route {
  const message = lastAIMessage(state.messages);
  if (!message || (message.tool_calls?.length ?? 0) === 0) return END;
  if (state.outOfSteps) return "circuit_fallback";
  const verdicts = verdictsFor(message, state.verdicts);
  if (!verdicts?.some((v) => !v.allowed)) return "tools";
  return onTrip === "ask" ? "circuit_review" : "circuit_fallback";
}
