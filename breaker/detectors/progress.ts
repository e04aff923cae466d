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
