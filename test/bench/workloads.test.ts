import { describe, expect, it } from "vitest";
import { createBreaker, MemoryStore } from "../../breaker/index.js";
import { benchCall, benchPolicy } from "../../bench/lib/calls.js";
import { breakerChecker, checkWorkload } from "../../bench/lib/check-workload.js";
import { measureInterleaved } from "../../bench/lib/measure.js";
import { decideWorkload } from "../../bench/sections/detection-cost.js";
import { cumulative, inputDollars, loopingSessionsPerMonth, savingsChart } from "../../bench/sections/savings.js";

const TINY = { warmupBatches: 2, batches: 5, reps: 3 };
// Batches a tiny plan runs, warm-up included.
const TINY_BATCHES = TINY.warmupBatches + TINY.batches * TINY.reps;

describe("bench workloads on tiny inputs (the --quick path)", () => {
  it("measures decide() on a sliding window that stays on the normal CLOSED path", async () => {
    const workload = decideWorkload(10);
    const [measured] = await measureInterleaved([workload], TINY);
    expect(measured!.reps).toHaveLength(3);
    expect(measured!.opsPerRep).toBe(5);
    expect(measured!.p50Us.median).toBeGreaterThan(0);
    expect(workload.states).toEqual({ CLOSED: TINY_BATCHES, HALF_OPEN: 0, OPEN: 0 });
  });

  it("keeps a healthy synthetic session CLOSED past a full window, sequential and concurrent", async () => {
    const policy = benchPolicy(12);
    for (const concurrency of [1, 4]) {
      const breaker = createBreaker({ store: new MemoryStore(), policy });
      const workload = checkWorkload({
        id: "w",
        label: "w",
        checker: breakerChecker(breaker),
        sessions: ["s0", "s1", "s2", "s3"],
        concurrency,
      });
      await workload.prefill(policy.windowSize + 5);
      await measureInterleaved([workload], TINY);
      expect(workload.states.CLOSED).toBe(TINY_BATCHES * concurrency);
      expect(workload.states.HALF_OPEN + workload.states.OPEN).toBe(0);
      const snapshot = await breaker.inspect("s0");
      expect(snapshot.window).toHaveLength(policy.windowSize);
      expect(snapshot.window.every((c) => c.outcome !== undefined)).toBe(true);
    }
  });

  it("still stops a real loop under the bench policy (only the volume limits are lifted)", async () => {
    const breaker = createBreaker({ policy: benchPolicy() });
    const call = benchCall("loop", 0);
    let verdict;
    for (let i = 0; i < 10; i++) {
      verdict = await breaker.check("loop", { ...call.request, id: `c${i}` });
      if (!verdict.allowed) break;
      await breaker.complete("loop", `c${i}`, { kind: "error", fingerprint: "same" });
    }
    expect(verdict?.allowed).toBe(false);
  });
});

describe("savings arithmetic", () => {
  it("reproduces the seed's economics", () => {
    expect(inputDollars(50 * 12_000)).toBeCloseTo(1.8, 10);
    expect(loopingSessionsPerMonth()).toBe(3_000);
    expect(cumulative([12_000, 12_000, 12_000])).toEqual([[0, 0], [1, 12_000], [2, 24_000], [3, 36_000]]);
  });

  it("charts both runs and marks the trip turn", () => {
    const spend = (turns: number) => ({
      turns,
      inputTokens: turns * 12_000,
      outputTokens: 0,
      costUsd: 0,
      inputTokensByTurn: Array.from({ length: turns }, () => 12_000),
    });
    const svg = savingsChart(spend(3), spend(50), 3);
    expect(svg).toContain("breaker opens at turn 3");
    expect(svg).toContain("Without the breaker: 600,000 tokens, $1.80");
    expect(svg).toContain("With the breaker: 36,000 tokens, $0.11");
  });
});
