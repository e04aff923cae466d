import type { CallRecord } from "../types.js";
import { mutates } from "./mutation.js";
import { answered, isStale } from "./progress.js";

/** The trailing calls of one request that brought nothing new, and what came before them. */
export interface Streak {
  /** Finished calls since the last one that brought news, oldest first. */
  stale: CallRecord[];
  /** The last finished call that brought news (a first or new result, a new failure after acting), if any. */
  news?: CallRecord;
  /** Calls still running since then: they have shown nothing yet. */
  pending: CallRecord[];
  /**
   * True when the agent changed something (an edit, a write) while the stale
   * streak stood: its repeats are retries of a changed program, judged by the
   * retry levels rather than the repeat levels.
   */
  afterChange: boolean;
  /** The stale calls since the agent last changed something: plain repeats, however the streak began. */
  sinceChange: CallRecord[];
}

// Per run: whether each call did something new. Computed once per run array, whatever the request asked about.
const freshness = new WeakMap<readonly CallRecord[], Uint8Array>();

/** A call the run had not made before, that did not fail. */
export const NEW_CALL = 1;
/** A call made before whose answer changed. */
export const NEW_ANSWER = 2;

/**
 * For each call of a run, whether it did something new: `NEW_CALL` for a
 * call the agent had not made before in the run that did not fail (a new
 * step of work), `NEW_ANSWER` for a known call whose answer changed (the
 * world it reads has moved), 0 otherwise.
 */
export function freshCalls(run: readonly CallRecord[]): Uint8Array {
  let fresh = freshness.get(run);
  if (fresh) return fresh;
  fresh = new Uint8Array(run.length);
  // Answers seen per request (tool, then argument hash): the successful fingerprints, space-separated.
  const answers = new Map<string, Map<string, string>>();
  for (let i = 0; i < run.length; i++) {
    const call = run[i]!;
    let byArgs = answers.get(call.tool);
    if (!byArgs) answers.set(call.tool, (byArgs = new Map()));
    const known = byArgs.get(call.argsHash);
    const outcome = call.outcome;
    const ok = outcome && answered(call) ? outcome.fingerprint : undefined;
    if (known === undefined) fresh[i] = outcome === undefined || ok !== undefined ? NEW_CALL : 0;
    else fresh[i] = ok !== undefined && !known.includes(ok) ? NEW_ANSWER : 0;
    if (known === undefined) byArgs.set(call.argsHash, ok ?? "");
    else if (ok !== undefined && !known.includes(ok)) byArgs.set(call.argsHash, `${known} ${ok}`);
  }
  freshness.set(run, fresh);
  return fresh;
}

// Between two identical changes (the same edit, the same file written), what can make the second one
// new: another change, or an answer showing the world moved (a file read again with other contents). A
// first look at something shows the agent learning, not the target changing: the change repeats itself.
function actsOnChange(call: CallRecord, fresh: number): boolean {
  return fresh === NEW_ANSWER || mutates(call);
}

/**
 * Walk a run's calls that `belongs` to one request and find its stale streak.
 * Between two of them, the agent has acted when another call did something
 * new (see `freshCalls`): an edit before the test runs again, a new step of
 * work between two looks at a task board. The request's next answer is then
 * judged afresh, and its earlier calls still running no longer count. When
 * the request is itself a `change`, only another change or an answer that
 * moved counts (see `actsOnChange`).
 */
export function staleStreak(run: readonly CallRecord[], belongs: (call: CallRecord) => boolean, change = false): Streak {
  const fresh = freshCalls(run);
  const seenResults = new Set<string>();
  // The request's failures since it last succeeded: one coming back is no news.
  const failures = new Set<string>();
  let acted = false;
  let changedSince = false;
  let afterChange = false;
  let sinceChange: CallRecord[] = [];
  let previous: CallRecord | undefined;
  let stale: CallRecord[] = [];
  let news: CallRecord | undefined;
  let pending: CallRecord[] = [];
  for (let i = 0; i < run.length; i++) {
    const call = run[i]!;
    // A call the harness cancelled (a sibling in its batch failed) never ran: it asked nothing and showed nothing.
    if (call.outcome?.cancelled) continue;
    if (!belongs(call)) {
      if (fresh[i] && (!change || actsOnChange(call, fresh[i]!))) {
        acted = true;
        if (call.outcome && answered(call) && mutates(call)) {
          changedSince = true;
          if (stale.length > 0) {
            afterChange = true;
            sinceChange = [];
          }
        }
      }
      continue;
    }
    if (acted) pending = [];
    changedSince = false;
    const outcome = call.outcome;
    if (!outcome) pending.push(call);
    else {
      if (isStale(previous, call, acted, seenResults, failures)) {
        stale.push(call);
        sinceChange.push(call);
      } else {
        // Calls issued before the news are older than it: they no longer count.
        news = call;
        stale = [];
        sinceChange = [];
        afterChange = false;
        pending = pending.filter((p) => p.step > call.step);
      }
      if (answered(call)) {
        seenResults.add(outcome.fingerprint);
        failures.clear();
      } else if (outcome.kind === "error") failures.add(outcome.fingerprint);
      previous = call;
    }
    acted = false;
  }
  // Something new since the last of them: the calls still running are no longer a streak.
  if (acted) pending = [];
  // The agent changed something since the request last answered: its next answer looks at a changed world and is
  // judged afresh, as a finished one would be (a hand-back to the supervisor after the report was written).
  if (changedSince && previous && answered(previous)) stale = sinceChange = [];
  return { stale, ...(news ? { news } : {}), pending, afterChange, sinceChange };
}
