import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { familyStreak } from "./family.js";
import { waitSeconds } from "./waits.js";

// Seconds between consecutive polls: the clock, or the waits asked for from the earlier poll up to the
// next one (its own wait argument, a wait tool called in between) when those say more.
function intervals(calls: readonly CallRecord[], run: readonly CallRecord[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < calls.length; i++) {
    const from = calls[i - 1]!;
    const to = calls[i]!;
    let waited = 0;
    for (const call of run) if (call.step >= from.step && call.step < to.step) waited += waitSeconds(call);
    gaps.push(Math.max((to.at - from.at) / 1_000, waited));
  }
  return gaps;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const minutes = (s: number) => (s >= 90 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`);

/**
 * A poll whose status has not moved for longer than its time budget, judged
 * by time as well as count: the budget is `block` seconds, or `intervals`
 * times the poll's usual interval when it polls slowly, so a job that takes
 * a few minutes may be polled every few seconds, and a long build polled
 * every minute gets that many polls. Time runs from the call that first
 * returned the status the poll keeps getting; a wait a call asks for
 * (`wait_seconds: 60`, `sleep 30 && ...`) counts even when calls came faster.
 */
export const stuckPoll: Detector = {
  id: "stuck_poll",
  scope: "run",
  needsRun: true,
  detect(input) {
    const { streak, news, kind } = familyStreak(input);
    if (kind !== "poll" || !news) return null;
    const { candidate, levels, run } = input;
    const calls = [news, ...streak, candidate];
    const gaps = intervals(calls, run);
    const seconds = gaps.reduce((sum, gap) => sum + gap, 0);
    const { warn, block, intervals: polls } = levels.stuck_poll;
    const scale = Math.max(1, (polls * median(gaps)) / block);
    const budget = { warn: warn * scale, block: block * scale };
    return findingAt("stuck_poll", seconds, budget, calls.map((c) => c.step), () =>
      `${candidate.tool} has returned the same unfinished status for ${minutes(seconds)} over ${calls.length - 1} polls (budget ${minutes(budget.block)}); the job is not moving.`,
    );
  },
};
