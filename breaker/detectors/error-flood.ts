import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";

/**
 * Call after call failing, whatever the tools and arguments: the run is not
 * recovering. Calls still running neither break nor extend the streak.
 */
export const errorFlood: Detector = {
  id: "error_flood",
  scope: "run",
  detect({ candidate, run, levels }) {
    const failed = [];
    for (let i = run.length - 1; i >= 0; i--) {
      const call = run[i]!;
      if (!call.outcome) continue;
      if (call.outcome.kind !== "error") break;
      failed.push(call);
    }
    failed.reverse();
    const steps = [...failed.map((c) => c.step), candidate.step];
    const tools = [...new Set(failed.map((c) => c.tool))].join(", ");
    return findingAt("error_flood", steps.length, levels.error_flood, steps, () =>
      `The last ${failed.length} tool calls all failed (${tools}); the run is not recovering.`,
    );
  },
};
