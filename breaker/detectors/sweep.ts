import { BoundedCache } from "../bounded-cache.js";
import type { CallRecord } from "../types.js";
import { answered } from "./progress.js";

// Argument text cut into words and separators, so a path or an id is one slot: `grep -n x a/b_test.go`.
const tokensOf = (args: string) => args.split(/([\s"'{}[\],:=|&;()]+)/);

const cache = new BoundedCache<string, boolean>(4_096);

/** True when two calls' arguments are one template with one slot filled differently (a path, an id). */
function oneSlotApart(a: CallRecord, b: CallRecord): boolean {
  if (a.tool !== b.tool || a.argsHash === b.argsHash) return false;
  const key = a.argsHash < b.argsHash ? `${a.argsHash}${b.argsHash}` : `${b.argsHash}${a.argsHash}`;
  let found = cache.get(key);
  if (found === undefined) {
    const x = tokensOf(a.args);
    const y = tokensOf(b.args);
    found = x.length === y.length && x.filter((token, i) => token !== y[i]).length === 1;
    cache.set(key, found);
  }
  return found;
}

/**
 * True when a streak of misses is a sweep: the same request over many
 * targets (one grep over each test file, one lookup per id), one slot of the
 * arguments changing, that has already hit on an earlier target in the run.
 * Its misses are answers ("not in this file"), not guesses; a guess at an id
 * never hits.
 */
export function isSweep(candidate: CallRecord, misses: readonly CallRecord[], run: readonly CallRecord[]): boolean {
  if (!misses.every((call) => oneSlotApart(call, candidate))) return false;
  return run.some((call) => call.outcome !== undefined && answered(call) && oneSlotApart(call, candidate));
}
