import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { sameRequest } from "./similarity.js";

// A failure that answers a changed request with a new error is a step of a debug cycle (a
// script fixed and failing further on), not more of the same: it neither counts nor breaks the streak.
function isNewFailure(call: CallRecord, run: readonly CallRecord[], index: number, similarity: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const before = run[i]!;
    if (!before.outcome || !sameRequest(before, call, similarity)) continue;
    return before.outcome.kind === "error" && before.argsHash !== call.argsHash && before.outcome.fingerprint !== call.outcome!.fingerprint;
  }
  return false;
}

/**
 * Call after call failing, whatever the tools and arguments: the run is not
 * recovering. Calls still running or cancelled neither break nor extend the streak, and
 * neither do the steps of a debug cycle (a changed request failing in a new way).
 */
export const errorFlood: Detector = {
  id: "error_flood",
  scope: "run",
  detect({ candidate, run, levels }) {
    const similarity = levels.semantic_stutter.similarity;
    const failed: CallRecord[] = [];
    for (let i = run.length - 1; i >= 0; i--) {
      const call = run[i]!;
      if (!call.outcome || call.outcome.cancelled) continue;
      if (call.outcome.kind !== "error") break;
      if (!isNewFailure(call, run, i, similarity)) failed.push(call);
    }
    failed.reverse();
    const steps = [...failed.map((c) => c.step), candidate.step];
    const tools = [...new Set(failed.map((c) => c.tool))];
    // The first call of another tool after one tool's failures is the change of approach a warning asks
    // for: it is warned about, not refused. If it fails too, the flood spans tools and the next is judged.
    const switching = tools.length === 1 && tools[0] !== candidate.tool;
    const finding = findingAt("error_flood", steps.length, levels.error_flood, steps, () =>
      `The last ${failed.length} tool calls all failed (${tools.join(", ")}); the run is not recovering.`,
    );
    return finding && switching ? { ...finding, severity: "warn" } : finding;
  },
};
