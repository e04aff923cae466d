import type { CallRecord, ToolOutcome } from "../types.js";
import { mutates } from "./mutation.js";
import { isWait } from "./waits.js";

/**
 * True when a finished call gave an answer: a success, or a wait or a change
 * that came back empty. A wait's purpose is the time it lets pass and a
 * change's the change it makes, not their output: `sleep 5` or `sed -i ...`
 * printing nothing has done what it was asked and is no miss.
 */
export function answered(call: CallRecord): boolean {
  const kind = call.outcome?.kind;
  return kind === "ok" || (kind === "empty" && (isWait(call) || mutates(call)));
}

const NO_FAILURES: ReadonlySet<string> = new Set();

/**
 * True when `call`, finished, brought nothing new after `previous` (the
 * finished call before it in its family, if any):
 * - an empty result is nothing new, unless the call only waits or changes
 *   something (see `answered`): then it is judged like a success;
 * - a success is nothing new when its request already gave that very result
 *   (`seen`; fingerprints mask fresh ids and timestamps), unless the agent
 *   acted in between (then it is a look at a world that may have changed) or
 *   the result itself says the action changed something (`changed`);
 * - an error is nothing new, unless it is a different miss from
 *   `previous`'s (an error, or an empty result: a type check that printed
 *   nothing, then failed once files were written) after the agent acted in
 *   between or changed the request
 *   itself (a test failing differently after an edit, a script failing
 *   elsewhere once fixed); a reworded failure of the very same call, or two
 *   transient failures, are not news, nor is the very same request failing
 *   with the cause it stated before (its error or verdict lines, `cause`)
 *   when only other lines changed, such as debug output added between runs,
 *   nor a failure the request already gave, word for word, since it last
 *   succeeded (`failed`: a test that alternates between two errors however
 *   the code is edited).
 */
export function isStale(
  previous: CallRecord | undefined,
  call: CallRecord,
  acted: boolean,
  seen: ReadonlySet<string>,
  failed: ReadonlySet<string> = NO_FAILURES,
): boolean {
  const outcome = call.outcome;
  if (!outcome) return false;
  // A result that says the action changed something (a click that moved the game on) is news, whatever its words.
  if (answered(call)) return !acted && outcome.changed !== true && seen.has(outcome.fingerprint);
  if (outcome.kind === "empty") return true;
  const before = previous?.outcome;
  const sameRequest = previous?.argsHash === call.argsHash;
  const newFailure =
    (before?.kind === "error" || before?.kind === "empty") &&
    before.fingerprint !== outcome.fingerprint &&
    !failed.has(outcome.fingerprint) &&
    !(before.transient && outcome.transient) &&
    !(sameRequest && before.cause !== undefined && before.cause === outcome.cause);
  return !(newFailure && (acted || !sameRequest));
}

/** True when two successful results say the same: equal fingerprints (fresh ids and times are masked). */
export function sameSuccess(a: ToolOutcome, b: ToolOutcome): boolean {
  return a.fingerprint === b.fingerprint;
}

/** True when a finished call brought nothing: an empty result (not a wait's) or an error. */
export function isMiss(call: CallRecord): boolean {
  return call.outcome !== undefined && !answered(call);
}

/**
 * True when two calls' outcomes are alike, or either is unknown yet (a
 * pending call shows nothing new): the same success, two misses of one kind.
 * A result that says its action changed something (`changed`) is like no other.
 */
export function sameOutcome(a: CallRecord, b: CallRecord): boolean {
  if (!a.outcome || !b.outcome) return true;
  if (a.outcome.kind !== b.outcome.kind) return false;
  // A result that says the action changed something repeats nothing, whatever its words.
  if (a.outcome.changed === true || b.outcome.changed === true) return false;
  return a.outcome.kind !== "ok" || sameSuccess(a.outcome, b.outcome);
}

/** Short description of a no-progress streak's outcomes, e.g. "2 empty, 1 error". */
export function describeOutcomes(calls: readonly CallRecord[]): string {
  const tally = new Map<string, number>();
  for (const call of calls) {
    // In a streak, a success is always a repeat of the result before it.
    const kind = call.outcome?.kind;
    const label = !kind ? "still running" : kind === "ok" ? "same result" : call.outcome!.transient ? "transient error" : kind;
    tally.set(label, (tally.get(label) ?? 0) + 1);
  }
  return [...tally].map(([label, n]) => (n > 1 && label.endsWith("error") ? `${n} ${label}s` : `${n} ${label}`)).join(", ");
}
