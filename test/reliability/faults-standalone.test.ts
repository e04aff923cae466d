import { afterAll, beforeAll, expect, it } from "vitest";
import { createBreaker, RedisStore, type RedisFailMode } from "../../breaker/index.js";
import { describeRedis, startRedisServer, uniquePrefix, waitFor, type RedisServer } from "../support/redis-server.js";
import { threadSession } from "../support/graph-helpers.js";
import { expectBounded, expectFailModeBehaviour, runWithFault, slowest, timedStore } from "./support/fault-helpers.js";
import { reportFigures } from "./support/figures.js";

// Short timeouts keep the suite quick; the bound is the longer of the two plus a second of slack for a loaded machine.
const TIMEOUTS = { commandTimeoutMs: 300, connectTimeoutMs: 500 };
const BOUND_MS = Math.max(TIMEOUTS.commandTimeoutMs, TIMEOUTS.connectTimeoutMs) + 1_000;
const RUN_DEADLINE_MS = 20_000;

describeRedis("faults on standalone Redis, for each failMode", "binary", () => {
  let server: RedisServer;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    server?.resume();
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });

  const newStore = (failMode: RedisFailMode) => {
    const prefix = uniquePrefix("faults");
    const redis = RedisStore.fromUrl(server.url, { ...TIMEOUTS, failMode, prefix });
    // A second, closed store on the same prefix sees only what really reached Redis.
    const reader = RedisStore.fromUrl(server.url, { failMode: "closed", prefix, commandTimeoutMs: 5_000 });
    stores.push(redis, reader);
    const direct = createBreaker({ store: reader });
    let fallbacks = 0;
    redis.subscribe(() => fallbacks++);
    // Back when the reader answers and the store under test reconnected too (an open store answers even while it has not).
    const redisBack = () =>
      waitFor("Redis to answer again", async () => {
        const before = fallbacks;
        await redis.snapshot("probe");
        return fallbacks === before && (await direct.inspect("probe")).totalCalls === 0;
      }, 15_000);
    return { redis, direct, redisBack, ...timedStore(redis) };
  };

  for (const failMode of ["closed", "open"] as RedisFailMode[]) {
    it(`failMode ${failMode}: every breaker call on a paused Redis returns within the bound, transitions included`, async () => {
      const { redis, redisBack } = newStore(failMode);
      const breaker = createBreaker({ store: redis });
      const waits: { op: string; ms: number; state?: string }[] = [];
      const timed = async <T>(op: string, work: () => Promise<T>): Promise<T | undefined> => {
        const started = performance.now();
        try {
          return await work();
        } catch (error) {
          // Only inspect may throw, and only in closed mode, with the typed error.
          expect([op, failMode, (error as { code?: string }).code]).toEqual(["inspect", "closed", "STORE_UNAVAILABLE"]);
          return undefined;
        } finally {
          waits.push({ op, ms: performance.now() - started });
        }
      };
      // Connected first, so the waits below are command timeouts, not a connection in progress.
      await breaker.inspect("warm-up");
      server.pause();
      try {
        // Identical calls, so the open-mode fallback moves through HALF_OPEN to OPEN: record and transition both wait.
        for (let i = 0; i < 5; i++) {
          const verdict = await timed("check", () => breaker.check("paused", { id: `p${i}`, name: "lookup", args: { q: "same" } }));
          waits.at(-1)!.state = verdict?.state;
          const detectors = verdict?.findings.map((f) => f.detector) ?? [];
          // closed refuses every call for the store; open judges them in memory, from the first call allowed.
          if (failMode === "closed") expect([verdict?.allowed, detectors]).toEqual([false, ["store_unavailable"]]);
          else expect(i > 0 || verdict?.allowed).toBe(true);
          if (failMode === "open") expect(detectors).not.toContain("store_unavailable");
          await timed("complete", () => breaker.complete("paused", `p${i}`, { output: [] }));
        }
        await timed("inspect", () => breaker.inspect("paused"));
      } finally {
        server.resume();
      }
      expectBounded(waits, BOUND_MS);
      // The open fallback still stopped the identical calls.
      if (failMode === "open") expect(waits.filter((w) => w.op === "check").at(-1)?.state).toBe("OPEN");
      await redisBack();
      const worst = slowest(waits);
      const checks = waits.filter((w) => w.op === "check");
      reportFigures(
        {
          section: "faults",
          scenario: `paused-breaker-${failMode}`,
          figures: {
            failMode,
            calls: waits.length,
            slowestOp: worst.op,
            slowestMs: Math.round(worst.ms),
            commandTimeoutMs: TIMEOUTS.commandTimeoutMs,
            boundMs: BOUND_MS,
            checkStates: checks.map((w) => w.state ?? "none"),
            checkMs: checks.map((w) => Math.round(w.ms)),
          },
        },
        `paused Redis failMode=${failMode}: ${waits.length} breaker calls, slowest ${worst.op} ${Math.round(worst.ms)} ms (commandTimeoutMs ${TIMEOUTS.commandTimeoutMs}, bound ${BOUND_MS} ms); checks: ${checks.map((w) => `${w.state} ${Math.round(w.ms)}`).join(", ")}`,
      );
    });

    it(`failMode ${failMode}: Redis killed mid-run, then restarted`, async () => {
      const { store, timings, direct, redisBack } = newStore(failMode);
      const during = await runWithFault(store, `killed-${failMode}`, () => server.kill(), RUN_DEADLINE_MS);
      expectFailModeBehaviour(failMode, during, 2);
      expectBounded(timings, BOUND_MS);
      const worst = slowest(timings);

      await server.restart();
      await redisBack();
      timings.length = 0;
      const after = await runWithFault(store, `restarted-${failMode}`, () => {}, RUN_DEADLINE_MS);
      expect(after.result.state.halted).toBe(false);
      expect(after.probe.runs()).toBe(4);
      // The calls after the restart are in Redis itself, not in the fallback.
      expect((await direct.inspect(threadSession(`restarted-${failMode}`))).totalCalls).toBe(4);
      expectBounded(timings, BOUND_MS);
      reportFigures(
        {
          section: "faults",
          scenario: `kill-${failMode}`,
          figures: { failMode, halted: during.result.state.halted, toolRuns: during.probe.runs(), slowestOp: worst.op, slowestMs: Math.round(worst.ms), boundMs: BOUND_MS, callsAfterRestart: 4 },
        },
        `fault kill+restart failMode=${failMode}: halted=${during.result.state.halted}, tool runs ${during.probe.runs()}/4, slowest store op ${worst.op} ${Math.round(worst.ms)} ms (bound ${BOUND_MS} ms), after restart 4/4 calls in Redis`,
      );
    });

    it(`failMode ${failMode}: Redis paused (SIGSTOP) past the command timeout`, async () => {
      const { store, timings, direct, redisBack } = newStore(failMode);
      const thread = `paused-${failMode}`;
      let during;
      try {
        during = await runWithFault(store, thread, () => server.pause(), RUN_DEADLINE_MS);
      } finally {
        server.resume();
      }
      expectFailModeBehaviour(failMode, during, 2);
      expectBounded(timings, BOUND_MS);
      const worst = slowest(timings);
      await redisBack();
      // Commands that timed out were already on the wire: Redis runs them once it resumes.
      const late = (await direct.inspect(threadSession(thread))).totalCalls;

      timings.length = 0;
      const after = await runWithFault(store, `resumed-${failMode}`, () => {}, RUN_DEADLINE_MS);
      expect(after.result.state.halted).toBe(false);
      expect((await direct.inspect(threadSession(`resumed-${failMode}`))).totalCalls).toBe(4);
      expectBounded(timings, BOUND_MS);
      reportFigures(
        {
          section: "faults",
          scenario: `pause-${failMode}`,
          figures: { failMode, halted: during.result.state.halted, toolRuns: during.probe.runs(), slowestOp: worst.op, slowestMs: Math.round(worst.ms), boundMs: BOUND_MS, callsInRedisAfterResume: late },
        },
        `fault pause failMode=${failMode}: halted=${during.result.state.halted}, tool runs ${during.probe.runs()}/4, slowest store op ${worst.op} ${Math.round(worst.ms)} ms (bound ${BOUND_MS} ms), calls in Redis after resume ${late} (timed-out commands ran late)`,
      );
    });
  }
});
