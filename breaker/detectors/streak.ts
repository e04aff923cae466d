import type { CallRecord } from "../types.js";
import { isStale } from "./progress.js";

/** The trailing calls of one request that brought nothing new, and what came before them. */
export interface Streak {
  /** Finished calls since the last one that brought news, oldest first. */
  stale: CallRecord[];
  /** The last finished call that brought news (a first or new result, a new failure after acting), if any. */
  news?: CallRecord;
  /** Calls still running since then: they have shown nothing yet. */
  pending: CallRecord[];
}

/**
 * Walk a run's calls that `belongs` to one request and find its stale streak.
 * Between two of them, the agent has acted when another call did something
 * new: a call it had not made before in the run that did not fail (an edit
 * before the test runs again, a new step of work between two looks at a task
 * board), or a known call whose answer changed. The request's next answer is
 * then judged afresh, and its earlier calls still running no longer count.
 */
export function staleStreak(run: readonly CallRecord[], belongs: (call: CallRecord) => boolean): Streak {
  const answers = new Map<string, Set<string>>();
  const seenResults = new Set<string>();
  let acted = false;
  let previous: CallRecord | undefined;
  let stale: CallRecord[] = [];
  let news: CallRecord | undefined;
  let pending: CallRecord[] = [];
  for (const call of run) {
    const request = `${call.tool}\u0000${call.argsHash}`;
    const known = answers.get(request);
    const outcome = call.outcome;
    if (!belongs(call)) {
      const fresh = known === undefined ? outcome?.kind !== "empty" && outcome?.kind !== "error" : outcome?.kind === "ok" && !known.has(outcome.fingerprint);
      if (fresh) acted = true;
    } else if (!outcome) {
      if (acted) pending = [];
      pending.push(call);
      acted = false;
      continue;
    } else {
      if (acted) pending = [];
      if (isStale(previous, call, acted, seenResults)) stale.push(call);
      else {
        news = call;
        stale = [];
      }
      if (outcome.kind === "ok") seenResults.add(outcome.fingerprint);
      previous = call;
      acted = false;
    }
    const set = known ?? new Set<string>();
    if (outcome?.kind === "ok") set.add(outcome.fingerprint);
    answers.set(request, set);
  }
  return { stale, ...(news ? { news } : {}), pending };
}
