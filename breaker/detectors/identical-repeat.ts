import type { CallRecord } from "../types.js";
import type { Detector, DetectorFinding } from "./detector.js";
import { requestKeysOf } from "./arg-features.js";
import { findingAt } from "./detector.js";
import { familyStreak } from "./family.js";
import { times } from "./wording.js";
import { mutates } from "./mutation.js";
import { staleStreak } from "./streak.js";

/**
 * The same request again and again with nothing new to show: repeats still
 * running (concurrent duplicates in one model message, other workers' calls,
 * recorded runs without results) and finished repeats that brought nothing
 * new, counted since the last repeat that brought news or since the agent
 * last did something new. A running call is no sign of progress. A repeat is the
 * same tool with the same arguments, narration aside, or with arguments that
 * spell the same request (a reworded query, another case, "ORD 0042" for
 * "ord_42") with the same paging: two pages of one search are not repeats. With
 * `resetOnProgress: false` (side effects) every identical call that did not
 * fail counts, finished or not.
 */
export const identicalRepeat: Detector = {
  id: "identical_repeat",
  scope: "run",
  detect(input) {
    const { candidate, run, levels } = input;
    const level = levels.identical_repeat;
    // A first call of its run repeats nothing: its streak is itself alone, at whatever levels.
    if (run.length === 0) return finding(candidate, [candidate.step], level);
    const keys = requestKeysOf(candidate);
    const identical = (c: CallRecord) => {
      if (c.tool !== candidate.tool) return false;
      if (c.argsHash === candidate.argsHash) return true;
      const other = requestKeysOf(c);
      return other.identity === keys.identity || other.spelling === keys.spelling;
    };
    let streak: CallRecord[];
    // A side effect is done by every call that did not fail: a send that failed sent nothing.
    if (!level.resetOnProgress) streak = run.filter((c) => identical(c) && c.outcome?.kind !== "error");
    else {
      // Still running, or finished with nothing new since the last news; retries and polls are judged by their own levels.
      const { stale, pending, sinceChange } = staleStreak(run, identical, mutates(candidate));
      const { kind, news } = familyStreak(input);
      // After a change only the repeats since it are plain repeats; the retry levels judge the rest.
      const repeats = kind === "plain" ? stale : kind === "retry" ? sinceChange : [];
      // News from the request in other words (the same command with another timeout, which then ran) is news for it too.
      const counted = news ? repeats.filter((c) => c.step > news.step) : repeats;
      streak = [...counted, ...pending].sort((a, b) => a.step - b.step);
    }
    // The harness refused the last one as a repeat: it has judged this call already, and so does the breaker.
    const refused = run.findLast((c) => c.outcome !== undefined && identical(c))?.outcome?.repeatRefused === true;
    return finding(candidate, [...streak.map((c) => c.step), candidate.step], level, refused);
  },
};

function finding(candidate: CallRecord, steps: number[], level: { warn: number; block: number }, refused = false): DetectorFinding | null {
  return findingAt("identical_repeat", refused ? Math.max(steps.length, level.block) : steps.length, level, steps, (severity) =>
    `${candidate.tool} was called ${times(steps.length)} with the same arguments and nothing new to show for it` +
    (refused ? " (the tool refused the last one as a repeat)" : "") +
    (severity === "block" ? "; repeating it again cannot help." : "; vary the approach or answer with what you have."),
  );
}
