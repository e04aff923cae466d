import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { sameOutcome } from "./progress.js";
import { sameRequest } from "./similarity.js";

interface Loop {
  period: number;
  /** Calls (the candidate included) that repeat the call one period earlier with the same result. */
  repeats: number;
}

// How many trailing calls repeat the call `period` places before them, with the same result.
function repeatsAt(seq: readonly CallRecord[], period: number, threshold: number): number {
  let repeats = 0;
  for (let i = seq.length - 1; i - period >= 0; i--) {
    const a = seq[i]!;
    const b = seq[i - period]!;
    if (!sameRequest(a, b, threshold) || !sameOutcome(a, b)) break;
    repeats++;
  }
  return repeats;
}

// A period whose calls are all one request is a plain repeat, not a cycle.
function isOneRequest(seq: readonly CallRecord[], period: number, threshold: number): boolean {
  const last = seq[seq.length - 1]!;
  for (let i = seq.length - period; i < seq.length - 1; i++) {
    if (!sameRequest(seq[i]!, last, threshold)) return false;
  }
  return true;
}

/**
 * A sequence of 2..maxPeriod calls (A,B,A,B or A,B,C,A,B,C) going round
 * with the same results each time: the ping-pong no single-call count sees.
 * A cycle whose results change (two polls taken in turn while both move) is progress.
 */
export const cycle: Detector = {
  id: "cycle",
  scope: "run",
  detect({ candidate, run, levels }) {
    const level = levels.cycle;
    const threshold = levels.semantic_stutter.similarity;
    const seq = [...run, candidate];
    let best: Loop | undefined;
    for (let period = 2; period <= level.maxPeriod && period + level.warn <= seq.length; period++) {
      const repeats = repeatsAt(seq, period, threshold);
      if (repeats >= level.warn && repeats > (best?.repeats ?? 0) && !isOneRequest(seq, period, threshold)) {
        best = { period, repeats };
      }
    }
    if (!best) return null;
    const loop = seq.slice(seq.length - best.repeats - best.period);
    const names = loop.slice(0, best.period).map((c) => c.tool).join(" → ");
    return findingAt("cycle", best.repeats, level, loop.map((c) => c.step), () =>
      `The sequence ${names} is going round in a cycle of ${best.period} calls with the same results each time (${loop.length} calls, ${best.repeats} of them repeats).`,
    );
  },
};
