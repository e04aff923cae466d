import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { identityOf } from "./arg-features.js";
import { findingAt } from "./detector.js";
import { familyStreak } from "./family.js";
import { staleStreak } from "./streak.js";

/**
 * The same tool with the same canonical arguments, again and again, while the
 * result does not change: counted from the last identical call that brought
 * news, calls still running included (concurrent duplicates are still
 * limited). Streaks of transient failures and polls are judged by their own
 * detectors, so only their running duplicates count here. With
 * `resetOnProgress: false` (side effects) every identical call counts.
 */
export const identicalRepeat: Detector = {
  id: "identical_repeat",
  scope: "run",
  detect(input) {
    const { candidate, run, levels } = input;
    const level = levels.identical_repeat;
    const identity = identityOf(candidate);
    const identical = (c: CallRecord) => c.tool === candidate.tool && (c.argsHash === candidate.argsHash || identityOf(c) === identity);
    let streak: CallRecord[];
    if (!level.resetOnProgress) {
      streak = run.filter(identical);
    } else {
      const { stale, news, pending } = staleStreak(run, identical);
      const judgedElsewhere = familyStreak(input).kind !== "plain";
      streak = judgedElsewhere ? pending : [...(news ? [news] : []), ...stale, ...pending].sort((a, b) => a.step - b.step);
    }
    const steps = [...streak.map((c) => c.step), candidate.step];
    return findingAt("identical_repeat", steps.length, level, steps, (severity) =>
      `${candidate.tool} was called ${steps.length} times with identical arguments and no new result` +
      (severity === "block" ? "; repeating it again cannot help." : "; vary the approach or answer with what you have."),
    );
  },
};
