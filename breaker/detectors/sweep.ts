import { BoundedCache } from "../bounded-cache.js";
import type { CallRecord } from "../types.js";
import { answered } from "./progress.js";

// Argument text cut into words and separators, so a path or an id is one slot: `grep -n x a/b_test.go`.
const tokensOf = (args: string) => args.split(/([\s"'{}[\],:=|&;()]+)/);

// The values of the one slot two calls fill differently, or null when they differ elsewhere too.
const cache = new BoundedCache<string, readonly [string, string] | null>(4_096);

/** When two calls' arguments are one template with one slot filled differently (a path, an id, a date): that slot's two values. */
function slotApart(a: CallRecord, b: CallRecord): readonly [string, string] | null {
  if (a.tool !== b.tool || a.argsHash === b.argsHash) return null;
  const key = a.argsHash < b.argsHash ? `${a.argsHash}${b.argsHash}` : `${b.argsHash}${a.argsHash}`;
  let slot = cache.get(key);
  if (slot === undefined) {
    const x = tokensOf(a.args);
    const y = tokensOf(b.args);
    const differ = x.length === y.length ? x.flatMap((token, i) => (token !== y[i] ? [i] : [])) : [];
    slot = differ.length === 1 ? [x[differ[0]!]!, y[differ[0]!]!] : null;
    cache.set(key, slot);
  }
  return slot;
}

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * True when a streak of misses is a sweep: the same request over many
 * targets (one grep over each test file, one lookup per id, one search per
 * day), one slot of the arguments changing. Its misses are answers ("not in
 * this file", "no flight that day"), not guesses. A guess at an id never hits,
 * so over ids and paths a sweep must have hit on an earlier target in the run;
 * a calendar has every date in it, so a slot that walks through dates is a
 * sweep before anything is found.
 */
export function isSweep(candidate: CallRecord, misses: readonly CallRecord[], run: readonly CallRecord[]): boolean {
  const slots = misses.map((call) => slotApart(call, candidate));
  if (!slots.every((slot) => slot !== null)) return false;
  if (slots.length > 0 && slots.every((slot) => CALENDAR_DATE.test(slot![0]) && CALENDAR_DATE.test(slot![1]))) return true;
  return run.some((call) => call.outcome !== undefined && answered(call) && slotApart(call, candidate) !== null);
}
