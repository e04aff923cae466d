import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { times } from "./wording.js";
import { familyStreak, judgedStreak } from "./family.js";
import { describeOutcomes } from "./progress.js";

/**
 * The same call coming back with nothing new, again and again: empty, an
 * error, or the very result it gave last time. Results that change (new
 * pages, new stream chunks, a retry that succeeded, a test failing
 * differently after an edit) end the streak; transient failures, and failures after a change, get the
 * retry levels; a poll whose status stays put is left to `stuck_poll`.
 */
export const noProgress: Detector = {
  id: "no_progress",
  scope: "run",
  detect(input) {
    const family = familyStreak(input);
    if (family.varied || family.kind === "poll") return null;
    const { candidate } = input;
    const { streak, level } = judgedStreak(input, family, input.levels.no_progress);
    const steps = [...streak.map((c) => c.step), candidate.step];
    return findingAt("no_progress", steps.length, level, steps, () =>
      `${candidate.tool} has brought nothing new ${times(streak.length)} in a row with these arguments (${describeOutcomes(streak)}); another call would repeat it again.`,
    );
  },
};
