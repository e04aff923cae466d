import type { CallRecord } from "../types.js";
import type { DetectionInput } from "./detector.js";
import { isStale } from "./progress.js";
import { sameRequest } from "./similarity.js";

/** The run's recent calls asking for what the candidate asks for, and how many of them brought nothing new. */
export interface FamilyStreak {
  /** The trailing family calls that brought nothing new (or every family call, when progress does not reset), oldest first. */
  streak: CallRecord[];
  /** True when the streak and the candidate do not all share one canonical argument set. */
  varied: boolean;
}

const cache = new WeakMap<DetectionInput, FamilyStreak>();

/**
 * The candidate's family streak: walk back over earlier calls of the run that
 * are the same request up to cosmetic differences, counting those that
 * brought nothing new, and stop at the last one that did. Calls still running
 * are skipped: they have shown nothing yet (the identical-repeat count covers
 * them). Shared by the stutter and no-progress detectors, computed once per check.
 */
export function familyStreak(input: DetectionInput): FamilyStreak {
  const known = cache.get(input);
  if (known) return known;
  const { candidate, run, levels } = input;
  const { similarity, resetOnProgress } = levels.semantic_stutter;
  const family = run.filter((c) => sameRequest(c, candidate, similarity));
  let streak: CallRecord[];
  if (resetOnProgress) {
    const done = family.filter((c) => c.outcome);
    let start = done.length;
    while (start > 0 && isStale(done[start - 2], done[start - 1]!)) start--;
    streak = done.slice(start);
  } else {
    streak = family;
  }
  const varied = streak.some((c) => c.argsHash !== candidate.argsHash);
  const result = { streak, varied };
  cache.set(input, result);
  return result;
}
