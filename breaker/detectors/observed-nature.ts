import type { CallRecord, ToolNature } from "../types.js";

/**
 * The nature a call's behaviour shows: an identical call whose successful
 * result has moved on to new values (a job status, a queue length), never
 * back to one it gave before, is being watched: it is polling. A result
 * that flips back ("contents", "unchanged", "contents") shows no such thing.
 * Undefined when nothing shows.
 */
export function observedNature(candidate: CallRecord, run: readonly CallRecord[]): ToolNature | undefined {
  const seen = new Set<string>();
  let last: string | undefined;
  let moved = false;
  for (const call of run) {
    if (call.tool !== candidate.tool || call.argsHash !== candidate.argsHash || call.outcome?.kind !== "ok") continue;
    const result = call.outcome.fingerprint;
    if (result !== last) {
      if (seen.has(result)) return undefined;
      if (last !== undefined) moved = true;
    }
    seen.add(result);
    last = result;
  }
  return moved ? "polling" : undefined;
}
