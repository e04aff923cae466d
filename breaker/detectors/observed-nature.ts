import type { CallRecord, ToolNature } from "../types.js";

/**
 * The nature a call's behaviour shows: an identical call whose successful
 * result has moved on to new values at least twice (a job status, a queue
 * length), never back to one it gave before, is being watched: it is
 * polling. One change is no pattern (a file's contents, then "unchanged since
 * the last read"), and a result that flips back shows no such thing either.
 * Undefined when nothing shows.
 */
export function observedNature(candidate: CallRecord, run: readonly CallRecord[]): ToolNature | undefined {
  const seen = new Set<string>();
  let last: string | undefined;
  let moves = 0;
  for (const call of run) {
    if (call.tool !== candidate.tool || call.argsHash !== candidate.argsHash || call.outcome?.kind !== "ok") continue;
    const result = call.outcome.fingerprint;
    if (result !== last) {
      if (seen.has(result)) return undefined;
      if (last !== undefined) moves++;
    }
    seen.add(result);
    last = result;
  }
  return moves >= 2 ? "polling" : undefined;
}
