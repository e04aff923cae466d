import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { familyStreak } from "./family.js";
import { describeOutcomes } from "./progress.js";

/**
 * The same call coming back with nothing new, again and again: empty, an
 * error (by kind, whatever its wording), or the very result it gave last
 * time, such as a poll whose status never moves. Results that change
 * (a moving poll, new pages, new stream chunks, a retry that succeeded) end the streak.
 */
export const noProgress: Detector = {
  id: "no_progress",
  scope: "run",
  detect(input) {
    const { streak, varied } = familyStreak(input);
    if (varied || !input.levels.semantic_stutter.resetOnProgress) return null;
    const { candidate, levels } = input;
    const steps = [...streak.map((c) => c.step), candidate.step];
    return findingAt("no_progress", steps.length, levels.no_progress, steps, () =>
      `${candidate.tool} has brought nothing new ${streak.length} times in a row with these arguments (${describeOutcomes(streak)}); call ${steps.length} would repeat it again.`,
    );
  },
};
