import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { calls } from "./wording.js";
import { answered, isMiss } from "./progress.js";
import { mutates } from "./mutation.js";

/**
 * The same failure brought back turn after turn: each user turn's loop window
 * is fresh, but the session remembers that this exact call, or this tool with
 * this very error, has come back empty or failing in every turn since the
 * tool last worked. Counted in user turns (the candidate's included), so
 * retries within one turn stay the run detectors' business. A failure that came
 * back after the agent changed something in between (a setting switched, a file
 * written) is a test of that change, and gets one turn more.
 */
export const sessionRepeat: Detector = {
  id: "session_repeat",
  scope: "session",
  detect({ candidate, session, levels }) {
    const misses = [];
    let error: string | undefined;
    // A change made after one of the misses (a setting toggled, a file written): the failure came back on a changed world.
    let changeSeen = false;
    let changed = false;
    for (let i = session.length - 1; i >= 0; i--) {
      const call = session[i]!;
      const outcome = call.outcome;
      if (call.tool !== candidate.tool && outcome && answered(call) && mutates(call)) changeSeen = true;
      if (call.tool !== candidate.tool || !outcome) continue;
      if (!isMiss(call)) break;
      // The tool's latest failure is the one it keeps hitting; an identical call's misses count whatever they were.
      if (outcome.kind === "error" && !outcome.transient) error ??= outcome.fingerprint;
      if (call.argsHash === candidate.argsHash || (outcome.kind === "error" && outcome.fingerprint === error)) {
        misses.push(call);
        changed ||= changeSeen;
      }
    }
    const turns = misses.length === 0 ? 1 : new Set([...misses.map((c) => c.run), candidate.run]).size;
    const steps = misses.length === 0 ? [candidate.step] : misses.map((c) => c.step).reverse().concat(candidate.step);
    const level = changed ? { warn: levels.session_repeat.warn + 1, block: levels.session_repeat.block + 1 } : levels.session_repeat;
    return findingAt("session_repeat", turns, level, steps, () =>
      `${candidate.tool} has been called with these arguments in ${turns} user turns and came back empty or failing every time (${calls(misses.length)}).`,
    );
  },
};
