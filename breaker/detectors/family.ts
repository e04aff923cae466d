import type { CallRecord } from "../types.js";
import { severityOf, type DetectionInput } from "./detector.js";
import { elementRefVariants } from "./element-refs.js";
import { looselySimilar, proseVariants, sameRequest } from "./similarity.js";
import { mutates } from "./mutation.js";
import { staleStreak } from "./streak.js";
import { pollsRunningWork } from "./running-work.js";
import { waitSeconds } from "./waits.js";

/**
 * What a streak of calls bringing nothing new is: `transient` when every one
 * failed with an error a retry may cure (rate limit, 5xx, timeout), `retry`
 * when every one failed and the agent changed something in between (an edit
 * before the test runs again), `poll`
 * when every one returned the same unfinished status of the same thing (or
 * the tool polls by nature), `plain` otherwise. Retries get more room; polls
 * are judged by time.
 */
export type StreakKind = "plain" | "transient" | "retry" | "poll";

/** The run's recent calls asking for what the candidate asks for, and how many of them brought nothing new. */
export interface FamilyStreak {
  /** The trailing family calls that brought nothing new, oldest first. */
  streak: CallRecord[];

  /** The family call that last brought news: for a poll, where its status last moved. */
  news?: CallRecord;
  /** True when the streak and the candidate do not all share one canonical argument set. */
  varied: boolean;
  kind: StreakKind;
  /** For a `retry` streak: its calls since the agent last changed something. */
  sinceChange: CallRecord[];
}

const cache = new WeakMap<DetectionInput, FamilyStreak>();

function kindOf(input: DetectionInput, streak: readonly CallRecord[], news: CallRecord | undefined, afterChange: boolean): StreakKind {
  if (streak.length === 0) return "plain";
  const answers = streak.filter((c) => c.outcome!.kind !== "error");
  const transient = streak.every((c) => c.outcome!.kind !== "error" || c.outcome!.transient === true);
  if (answers.length === 0) return transient ? "transient" : afterChange ? "retry" : "plain";
  // A poll interrupted by a transient failure (a timeout between two "pending" answers) is still a poll.
  if (!transient) return "plain";
  // Asking after work left running (a process's session, a job's id): nothing yet is a poll's answer too.
  if (pollsRunningWork(input.candidate, input.run)) return "poll";
  const first = news?.outcome;
  if (first?.kind !== "ok" || !answers.every((c) => c.outcome!.kind === "ok")) return "plain";
  // A new id in every result is a new thing made each time (a send, a create), not a status read again.
  if (answers.some((c) => c.outcome!.ids !== first.ids)) return "plain";
  // Polling by nature, by what it reports (a job still running), or by waiting on purpose (`sleep 60`, wait_seconds).
  const polls = input.nature === "polling" || answers.at(-1)!.outcome!.inProgress === true || waitSeconds(input.candidate) > 0;
  return polls ? "poll" : "plain";
}

// A rewording of the candidate's request, the same request with other prose beside it, or, on a page that
// renumbers its elements, the same action under another element reference (judged only where the answers
// show it: the same answer back to two of them). A change answers alike whatever it was told to write ("Saved"),
// and an answer with a fresh id made something new each time, so neither shows anything about its prose.
function askedAlike(call: CallRecord, candidate: CallRecord, similarity: number): boolean {
  return (
    looselySimilar(call, candidate, similarity) ||
    (!mutates(call) && call.outcome?.ids === undefined && proseVariants(call, candidate)) ||
    (call.outcome?.page === true && elementRefVariants(call, candidate))
  );
}

/**
 * Answers the tool gave, word for word, to two or more rewordings of the
 * candidate's request (`looselySimilar`): a search that hands back the same
 * results however the query is put. Rewordings that got such an answer are
 * the candidate's request asked again. Undefined when there are none.
 */
function echoedAnswers(candidate: CallRecord, run: readonly CallRecord[], similarity: number): Set<string> | undefined {
  const askedBy = new Map<string, Set<string>>();
  for (const call of run) {
    if (call.tool !== candidate.tool || call.outcome?.kind !== "ok" || !askedAlike(call, candidate, similarity)) continue;
    const asks = askedBy.get(call.outcome.fingerprint) ?? new Set<string>();
    asks.add(call.argsHash);
    askedBy.set(call.outcome.fingerprint, asks);
  }
  let echoed: Set<string> | undefined;
  for (const [answer, asks] of askedBy) if (asks.size >= 2) (echoed ??= new Set()).add(answer);
  return echoed;
}

/**
 * The candidate's family streak: earlier calls of the run that are the same
 * request up to cosmetic differences, walked back to the last one that
 * brought news. Calls still running are skipped: they have shown nothing yet
 * (the identical-repeat count covers them). Shared by the stutter,
 * no-progress and poll detectors, computed once per check.
 */
export function familyStreak(input: DetectionInput): FamilyStreak {
  const known = cache.get(input);
  if (known) return known;
  const { candidate, run, levels } = input;
  if (run.length === 0) {
    // A first call of its run: no family, what the walk below finds in an empty run.
    const result: FamilyStreak = { streak: [], varied: false, kind: "plain", sinceChange: [] };
    cache.set(input, result);
    return result;
  }
  const similarity = levels.semantic_stutter.similarity;
  const echoed = echoedAnswers(candidate, run, similarity);
  const belongs = (call: CallRecord) =>
    sameRequest(call, candidate, similarity) ||
    (echoed !== undefined && call.outcome?.kind === "ok" && echoed.has(call.outcome.fingerprint) && askedAlike(call, candidate, similarity));
  const { stale, news, afterChange, sinceChange } = staleStreak(run, belongs, mutates(candidate));
  const result: FamilyStreak = { streak: stale, ...(news ? { news } : {}), varied: false, kind: kindOf(input, stale, news, afterChange), sinceChange };
  result.varied = result.streak.some((c) => c.argsHash !== candidate.argsHash);
  cache.set(input, result);
  return result;
}

/** A stale streak as it is judged: the calls that count, and the levels they are held to. */
export interface JudgedStreak {
  streak: CallRecord[];
  level: { warn: number; block: number };
}

/**
 * The calls a detector counts and the levels it holds them to. Retries of
 * transient failures get the retry levels. So does a failure that came back
 * after the agent changed something, counted over the whole streak, while its
 * repeats since the last change are still held to the plain `level`: each
 * change buys a retry, not a free run.
 */
export function judgedStreak(input: DetectionInput, family: FamilyStreak, level: { warn: number; block: number }): JudgedStreak {
  const retries = input.levels.transient_retries;
  if (family.kind === "transient") return { streak: family.streak, level: retries };
  if (family.kind !== "retry") return { streak: family.streak, level };
  const rank = (count: number, l: typeof level) => {
    const severity = severityOf(count, l);
    return severity === "block" ? 2 : severity === "warn" ? 1 : 0;
  };
  return rank(family.sinceChange.length + 1, level) > rank(family.streak.length + 1, retries)
    ? { streak: family.sinceChange, level }
    : { streak: family.streak, level: retries };
}

/**
 * The run's calls of the candidate's request that did what they were asked:
 * for a side effect each one is the harm, whatever it returned. A call that
 * failed did nothing; one still running may have. A rewording with words
 * added or dropped ("Delivery takes 2-3 days", "Delivery usually takes 2-3
 * days") to the same recipient is the same message sent again: unlike a
 * search, whose answers must show it, the send itself is the duplicate.
 */
export function doneCalls(input: DetectionInput): CallRecord[] {
  const { candidate, run, levels } = input;
  const similarity = levels.semantic_stutter.similarity;
  const sameSend = (call: CallRecord) => sameRequest(call, candidate, similarity) || looselySimilar(call, candidate, similarity);
  return run.filter((call) => call.outcome?.kind !== "error" && sameSend(call));
}
