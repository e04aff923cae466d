import { END, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { checkCalls } from "./check-calls.js";
import type { GuardedState, ResolveRun } from "./run-settings.js";
import { lastAIMessage, pendingCalls } from "./tool-calls.js";

/** Where the router can send a step. */
export type Route = "tools" | "circuit_fallback" | typeof END;

/**
 * The conditional edge after `agent`: no tool calls ends the run; otherwise
 * the breaker judges every call before any runs, and one refusal sends the
 * whole batch to `circuit_fallback`.
 */
export function createRouter(resolve: ResolveRun) {
  return async function route(state: GuardedState, config: LangGraphRunnableConfig): Promise<Route> {
    const message = lastAIMessage(state.messages);
    if (!message || pendingCalls(message).length === 0) return END;
    const verdicts = await checkCalls(resolve(state, config), state.messages);
    return verdicts.every((v) => v.allowed) ? "tools" : "circuit_fallback";
  };
}
