import type { CallRecord, ToolNature } from "../types.js";

/**
 * The nature a call's behaviour shows: an identical call whose successful
 * result has changed from one call to the next is being watched (a job
 * status, a queue length), so it is polling. Undefined when nothing shows.
 */
export function observedNature(candidate: CallRecord, run: readonly CallRecord[]): ToolNature | undefined {
  let previous: CallRecord | undefined;
  for (const call of run) {
    if (call.tool !== candidate.tool || call.argsHash !== candidate.argsHash || call.outcome?.kind !== "ok") continue;
    if (previous && previous.outcome!.fingerprint !== call.outcome.fingerprint) return "polling";
    previous = call;
  }
  return undefined;
}
