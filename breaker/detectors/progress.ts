import type { CallRecord } from "../types.js";

/**
 * What counts as the "same result" when telling progress from a loop: errors
 * compare by kind (an error with new wording is still an error), empty results
 * are all alike, and real output compares by fingerprint. A call still running
 * has shown no progress.
 */
export function progressKey(call: CallRecord): string {
  const outcome = call.outcome;
  if (!outcome) return "pending";
  return outcome.kind === "ok" ? `ok:${outcome.fingerprint}` : outcome.kind;
}

/** True when `call` produced something its predecessor in the same family did not. */
export function madeProgress(previous: CallRecord, call: CallRecord): boolean {
  return call.outcome !== undefined && progressKey(call) !== progressKey(previous);
}

/** True when a finished call brought nothing: an empty result or an error. */
export function isMiss(call: CallRecord): boolean {
  return call.outcome !== undefined && call.outcome.kind !== "ok";
}

/**
 * True when a finished call brought nothing new: a miss, or the very result
 * the previous finished call of its family returned. The first success of a
 * family is news.
 */
export function isStale(previous: CallRecord | undefined, call: CallRecord): boolean {
  if (!call.outcome) return false;
  if (isMiss(call)) return true;
  return previous !== undefined && progressKey(previous) === progressKey(call);
}

/** True when two calls' outcomes are alike, or either is unknown yet (a pending call shows nothing new). */
export function sameOutcome(a: CallRecord, b: CallRecord): boolean {
  return !a.outcome || !b.outcome || progressKey(a) === progressKey(b);
}

/** Short description of a no-progress streak's outcomes, e.g. "2 empty, 1 error". */
export function describeOutcomes(calls: readonly CallRecord[]): string {
  const tally = new Map<string, number>();
  for (const call of calls) {
    // In a streak, a success is always a repeat of the result before it.
    const label = !call.outcome ? "still running" : call.outcome.kind === "ok" ? "same result" : call.outcome.kind;
    tally.set(label, (tally.get(label) ?? 0) + 1);
  }
  return [...tally].map(([label, n]) => (label === "error" && n > 1 ? `${n} errors` : `${n} ${label}`)).join(", ");
}
