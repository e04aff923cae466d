import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { mutates } from "./mutation.js";
import { sameOutcome } from "./progress.js";
import { sameRequest } from "./similarity.js";
import { isWait } from "./waits.js";

interface Loop {
  period: number;
  /** Calls (the candidate included) that repeat the call one period earlier with the same result. */
  repeats: number;
  /** Some repeat besides the candidate was matched on a result not known yet: less evidence, one repeat more is needed. */
  blind: boolean;
}

// A call still running repeats its request's last result only if that request has not been
// moving: when its last two known results differ, the running call is presumed to move on too.
function moving(seq: readonly CallRecord[], index: number, threshold: number): boolean {
  const known: CallRecord[] = [];
  for (let i = index - 1; i >= 0 && known.length < 2; i--) {
    if (seq[i]!.outcome && sameRequest(seq[i]!, seq[index]!, threshold)) known.push(seq[i]!);
  }
  return known.length === 2 && !sameOutcome(known[0]!, known[1]!);
}

// One step of a round again: the same request, or for a change (an edit, a file written), the very same
// change. A change that writes something else is a new attempt, however alike the two texts look.
function sameStep(a: CallRecord, b: CallRecord, threshold: number): boolean {
  return mutates(a) ? a.argsHash === b.argsHash : sameRequest(a, b, threshold);
}

// One step's result again. A failure in other words is a round that moved: a test failing on the next problem
// after each fix is a test-fix cycle, not a ping-pong.
function sameRound(a: CallRecord, b: CallRecord): boolean {
  if (!sameOutcome(a, b)) return false;
  const [x, y] = [a.outcome, b.outcome];
  return !x || !y || x.kind !== "error" || x.fingerprint === y.fingerprint || (x.shape !== undefined && x.shape === y.shape);
}

// The trailing calls that repeat the call `period` places before them, with the same result.
function repeatsAt(seq: readonly CallRecord[], period: number, threshold: number): Loop {
  let repeats = 0;
  let blind = false;
  for (let i = seq.length - 1; i - period >= 0; i--) {
    const a = seq[i]!;
    const b = seq[i - period]!;
    if (!sameStep(a, b, threshold) || !sameRound(a, b)) break;
    if (!a.outcome && moving(seq, i, threshold)) break;
    if (i < seq.length - 1 && (!a.outcome || !b.outcome)) blind = true;
    repeats++;
  }
  return { period, repeats, blind };
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
  needsRun: true,
  detect({ candidate, run, levels }) {
    const level = levels.cycle;
    const threshold = levels.semantic_stutter.similarity;
    const seq = [...run, candidate];
    let best: Loop | undefined;
    for (let period = 2; period <= level.maxPeriod && period + level.warn <= seq.length; period++) {
      const found = repeatsAt(seq, period, threshold);
      if (found.repeats >= level.warn && found.repeats > (best?.repeats ?? 0) && !isOneRequest(seq, period, threshold)) best = found;
    }
    if (!best) return null;
    const loop = seq.slice(seq.length - best.repeats - best.period);
    // Two jobs polled in turn while both still run, or a poll taken in turn with a wait: judged by time, not as a cycle.
    const finished = loop.filter((c) => c.outcome);
    if (finished.some((c) => c.outcome!.inProgress) && finished.every((c) => c.outcome!.inProgress || isWait(c))) return null;
    const names = loop.slice(0, best.period).map((c) => c.tool).join(" → ");
    // Known, unchanged results: two rounds are a cycle. Results not known yet: a ping-pong's fifth call (the
    // third A of A,B,A,B,A, where peers stop it too), a longer cycle's third round.
    const block = best.blind ? Math.max(level.block, 2 * best.period - 1) : Math.max(level.block, best.period);
    const needed = { warn: Math.min(block, Math.max(level.warn, block - (level.block - level.warn))), block };
    return findingAt("cycle", best.repeats, needed, loop.map((c) => c.step), () =>
      `The sequence ${names} is going round in a cycle of ${best!.period} calls with the same results each time (${loop.length} calls, ${best!.repeats} of them repeats).`,
    );
  },
};
