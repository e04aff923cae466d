import { BoundedCache } from "../bounded-cache.js";
import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { isMiss } from "./progress.js";
import { sameRequest } from "./similarity.js";

/**
 * Many different requests to one tool, every one of them empty or failing
 * since the tool last returned something: the model is guessing, not
 * searching. Counts distinct requests (cosmetic variants are one), so a few
 * distinct lookups that each miss a couple of times still pass.
 */
export const flailing: Detector = {
  id: "flailing",
  scope: "run",
  detect({ candidate, run, levels }) {
    const level = levels.flailing;
    const misses: CallRecord[] = [];
    for (let i = run.length - 1; i >= 0; i--) {
      const call = run[i]!;
      if (call.tool !== candidate.tool || !call.outcome) continue;
      if (!isMiss(call)) break;
      misses.push(call);
    }
    if (misses.length + 1 < level.warn) return null;
    // One representative per request: the candidate, then each earlier miss unlike every one kept.
    const similarity = levels.semantic_stutter.similarity;
    const distinct: CallRecord[] = [candidate];
    for (const call of misses) if (!distinct.some((kept) => sameRequest(kept, call, similarity))) distinct.push(call);
    const steps = misses.map((c) => c.step).reverse().concat(candidate.step);
    return findingAt("flailing", distinct.length, level, steps, () =>
      `${candidate.tool} has been asked ${distinct.length} different things in a row (${misses.length} calls) and every answer was empty or an error; guessing further will not find it.`,
    );
  },
};
