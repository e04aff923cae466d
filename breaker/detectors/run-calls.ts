import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";

/** Too many calls in one run (one user turn): the turn ceiling. */
export const runCalls: Detector = {
  id: "run_calls",
  scope: "run",
  detect({ candidate, runCalls: calls, levels }) {
    return findingAt("run_calls", calls, levels.run_calls, [candidate.step], () =>
      `${calls} tool calls in this turn (limit ${levels.run_calls.block}).`,
    );
  },
};
