import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { madeProgress } from "./progress.js";

/**
 * The same tool with the same canonical arguments, again and again, while the
 * results stop changing. A repeat whose result moved (a stream yielding new
 * chunks, a retry that finally succeeded) restarts the count, unless the
 * tool's policy says every repeat counts (side effects).
 */
export const identicalRepeat: Detector = {
  id: "identical_repeat",
  scope: "run",
  detect({ candidate, run, levels }) {
    const level = levels.identical_repeat;
    const same = run.filter((c) => c.tool === candidate.tool && c.argsHash === candidate.argsHash);
    let streak = same;
    if (level.resetOnProgress) {
      // Compare finished calls only: a call still running (another worker's) has shown nothing yet,
      // so it neither resets the count nor makes the next result look new; it still counts as a repeat.
      let start = 0;
      let previous: CallRecord | undefined;
      for (const [i, call] of same.entries()) {
        if (!call.outcome) continue;
        if (previous && madeProgress(previous, call)) start = i;
        previous = call;
      }
      streak = same.slice(start);
    }
    const steps = [...streak.map((c) => c.step), candidate.step];
    return findingAt("identical_repeat", steps.length, level, steps, (severity) =>
      `${candidate.tool} was called ${steps.length} times with identical arguments and no new result` +
      (severity === "block" ? "; repeating it again cannot help." : "; vary the approach or answer with what you have."),
    );
  },
};
