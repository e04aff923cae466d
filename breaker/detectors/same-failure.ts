import { memoByCall } from "../call-memo.js";
import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { mutates } from "./mutation.js";
import { hasProgram } from "./program.js";
import { sameRequest } from "./similarity.js";
import { times } from "./wording.js";

/** True when a call runs a program the model wrote (`bash({command})`, `python({code})`), not a fixed operation. */
const runsProgram = memoByCall<boolean>(2_048, hasProgram);

// The web addresses a program names: the same scraper run against another site is another request.
const WEB_ADDRESS = /https?:\/\/[^\s"'\\)]+/g;
const addressesOf = memoByCall<string>(2_048, (_args, call) => [...new Set(call.args.match(WEB_ADDRESS) ?? [])].sort().join(" "));

/**
 * The same failure coming back from programs written differently: a build
 * that fails with one compiler error whether run as `cargo build | grep
 * error` or `cargo build 2>&1 | tail -20`, one SyntaxError through
 * `py_compile`, `poetry run` and `ast.parse`. The commands differ word for
 * word, so no request repeats; the cause they report does. Counts the
 * tool's failures with the latest failure's cause, back to one with another
 * cause (the problem moved) or to a success of one of the failing requests
 * (the check passed); reads and edits in between neither count nor break
 * it. Held to the retry levels, as a test rerun after each edit is: edits
 * that leave the cause in place buy retries, not a free run. A change the
 * candidate makes (an edit through the shell) is the fix being tried and is
 * let through.
 */
export const sameFailure: Detector = {
  id: "same_failure",
  scope: "run",
  needsRun: true,
  detect({ candidate, run, levels }) {
    if (!runsProgram(candidate) || mutates(candidate)) return null;
    const similarity = levels.semantic_stutter.similarity;
    let failed: CallRecord[] = [];
    const passed: CallRecord[] = [];
    let cause: string | undefined;
    for (let i = run.length - 1; i >= 0; i--) {
      const call = run[i]!;
      const outcome = call.outcome;
      if (call.tool !== candidate.tool || !outcome || outcome.cancelled) continue;
      if (outcome.kind !== "error") {
        // A failing check that works before these failures: they are a new episode, older ones are history.
        if (failed.some((f) => sameRequest(f, call, similarity))) break;
        passed.push(call);
        continue;
      }
      if (outcome.transient || !outcome.cause || !runsProgram(call)) continue;
      if (cause !== undefined && outcome.cause !== cause) break;
      // A failing check that has worked since: the cause was resolved there; only failures after it count.
      const fixed = passed.find((p) => sameRequest(p, call, similarity));
      if (fixed) {
        failed = failed.filter((f) => f.step > fixed.step);
        break;
      }
      cause = outcome.cause;
      failed.push(call);
    }
    // One program failing again is the other detectors' to judge; this one is about rewritten programs.
    if (new Set(failed.map((c) => c.argsHash)).size < 2) return null;
    // Stuck on the failure, not investigating around it: the failures are at least half the tool's calls
    // since the first of them. And aimed at one target: one scraper failing on four sites is a sweep.
    const first = failed.at(-1)!;
    const calls = run.filter((c) => c.tool === candidate.tool && c.step >= first.step && c.outcome && !c.outcome.cancelled).length;
    if (failed.length * 2 < calls || new Set(failed.map(addressesOf)).size > 1) return null;
    const steps = [...failed.map((c) => c.step).reverse(), candidate.step];
    return findingAt("same_failure", steps.length, levels.same_failure, steps, () =>
      `${candidate.tool} has failed for the same reason ${times(failed.length)}, through programs written differently; another way of running it will report it again.`,
    );
  },
};
