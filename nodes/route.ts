import { END } from "@langchain/langgraph";
import type { GuardedState } from "./state.js";
import { lastAIMessage, verdictsFor } from "./tool-calls.js";

/** Where the router can send a step. */
export type Route = "tools" | "circuit_fallback" | typeof END;

/**
 * The conditional edge after `agent`, a pure function of the state: no tool
 * calls ends the run; a refusal among the verdicts the agent step wrote, or a
 * step budget about to run out, ends it through `circuit_fallback`; anything
 * else goes to `tools` (which checks a message nobody checked, one edited
 * into the thread, before running any of it).
 */
export function route(state: Pick<GuardedState, "messages" | "verdicts" | "outOfSteps">): Route {
  const message = lastAIMessage(state.messages);
  if (!message || (message.tool_calls?.length ?? 0) === 0) return END;
  if (state.outOfSteps) return "circuit_fallback";
  const verdicts = verdictsFor(message, state.verdicts);
  return verdicts?.some((v) => !v.allowed) ? "circuit_fallback" : "tools";
}
