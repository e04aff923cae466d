import type { Plan } from "./measure.js";

/** The plan for a run: the full plan, or under --quick a fraction of it (at least 3 repetitions, so a median still means something). */
export function scalePlan(full: Plan, quick: boolean): Plan {
  if (!quick) return full;
  return {
    warmupBatches: Math.ceil(full.warmupBatches / 5),
    batches: Math.max(1, Math.ceil(full.batches / 8)),
    reps: Math.min(full.reps, 3),
  };
}
