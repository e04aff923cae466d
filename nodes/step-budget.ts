import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Policy } from "../breaker/index.js";

/** Steps an agent step with tool calls needs after it to come back and still end gracefully: tools, agent, circuit_fallback. */
export const STEPS_TO_END = 3;

/**
 * The recursion limit under which the breaker's run limit, not LangGraph,
 * ends every runaway turn: one agent and one tools step per call, plus the
 * refused call's agent step and circuit_fallback, which must be done a step
 * before the limit (see stepsLeft). Per-nature and per-tool run
 * limits count too, since any of them can be the one in force.
 */
export function recursionLimitFor(policy: Policy): number {
  const blocks = [
    policy.detectors.run_calls.block,
    ...Object.values(policy.natures).map((n) => n?.run_calls?.block ?? 0),
    ...Object.values(policy.tools).map((t) => t.detectors?.run_calls?.block ?? 0),
  ];
  return 2 * Math.max(...blocks) + 2;
}

/**
 * Graph steps the run has left after an agent step, or undefined outside a
 * graph run (a node called directly). LangGraph.js exposes no remaining-steps
 * value; a run whose first step is `first` must have finished by step
 * first + recursionLimit - 2 (one more step, even one that would end it, is a
 * GraphRecursionError), and the turn alternates agent and tools, so its first
 * step is this step minus two per earlier model message of the turn. A turn resumed in a later invocation
 * (after an interrupt) gets a fresh budget from LangGraph; counted from the
 * turn's start, this errs on the early side, never the late one.
 */
export function stepsLeft(messages: readonly BaseMessage[], config: LangGraphRunnableConfig): number | undefined {
  const step = config.metadata?.langgraph_step;
  const limit = config.recursionLimit;
  if (typeof step !== "number" || typeof limit !== "number") return undefined;
  let earlier = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const type = messages[i]!.getType();
    if (type === "human") break;
    if (type === "ai") earlier++;
  }
  const first = step - 2 * earlier;
  return first + limit - 2 - step;
}
