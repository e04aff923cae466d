import os from "node:os";
import type { Redis } from "ioredis";
import { createBreaker, MemoryStore, RedisStore, type Breaker } from "../../breaker/index.js";
import { rateLimiterChecker } from "../baselines/rate-limiter-checker.js";
import { twoRoundTripChecker } from "../baselines/two-round-trip-checker.js";
import { benchPolicy } from "../lib/calls.js";
import { breakerChecker, checkWorkload, storeChecker, type CheckWorkload, type Checker } from "../lib/check-workload.js";
import { measureInterleaved, type Measured, type Workload } from "../lib/measure.js";
import { benchRedis } from "../lib/redis.js";
import { ratioTarget, type Section, type TableData } from "../lib/section.js";
import { pairedRatio, type Spread } from "../lib/stats.js";
import { num, spread } from "../report/format.js";

/** Sessions checked side by side; also the pool the sequential runs cycle through. */
export const CONCURRENT_SESSIONS = 64;
/** Calls in the batch the batch path is measured with (parallel calls of one model message). */
export const BATCH_CALLS = 4;

// The targets of issue 13, as ratios of measurements interleaved in this run.
const MAX_PING_RATIO = 2.0;
const MIN_MEMORY_THROUGHPUT_RATIO = 0.6;
const MIN_SEED_THROUGHPUT_RATIO = 2.0;
const MAX_BATCH_RATIO = 1.3;
const MAX_RATE_LIMITER_RATIO = 1.75;

function sessionPool(label: string): string[] {
  return Array.from({ length: CONCURRENT_SESSIONS }, (_, i) => `bench-${label}-${i}`);
}

function pingWorkload(id: string, client: { ping(): Promise<unknown> }, concurrency: number): Workload {
  return { id, label: `PING round trip (the floor), ${concurrency === 1 ? "sequential" : `${concurrency} concurrent`}`, concurrency, op: () => client.ping() };
}

function checkerPair(id: string, label: string, checker: Checker): CheckWorkload[] {
  return [1, CONCURRENT_SESSIONS].map((concurrency) =>
    checkWorkload({
      id: `${id}-${concurrency === 1 ? "seq" : "concurrent"}`,
      label: `${label}, ${concurrency === 1 ? "sequential" : `${concurrency} concurrent sessions`}`,
      checker,
      sessions: sessionPool(`${id}-${concurrency}`),
      concurrency,
    }),
  );
}

function latencyTable(measured: readonly Measured[]): TableData {
  return {
    head: ["workload", "p50 µs", "p99 µs", "ops/s"],
    rows: measured.map((m) => [m.label, spread(m.p50Us), spread(m.p99Us), spread(m.opsPerSec)]),
  };
}

const SCRIPT_SAMPLE = 500;

// Server-side µs per script call: run a workload's operations alone (no
// outcomes, so no other script runs) between two reads of INFO commandstats.
async function scriptServerTime(client: Redis, workload: CheckWorkload): Promise<number> {
  await client.config("RESETSTAT");
  for (let i = 0; i < SCRIPT_SAMPLE; i++) await workload.op(0);
  const stats = await client.info("commandstats");
  await workload.afterBatch?.();
  const line = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats);
  return line ? Number(line[2]) / Number(line[1]) : Number.NaN;
}

const CPU_BATCHES = 60;

/**
 * Where a concurrent check's CPU goes: this process's CPU (user + system) per
 * check, and Redis' own time per check (INFO commandstats, every command),
 * over a few more batches run alone. When both compete for the same cores,
 * their sum bounds the throughput.
 */
async function cpuPerCheck(client: Redis, workload: CheckWorkload): Promise<{ nodeUs: number; redisUs: number }> {
  await client.config("RESETSTAT");
  const before = process.cpuUsage();
  const lanes = Array.from({ length: workload.concurrency }, (_, lane) => lane);
  for (let b = 0; b < CPU_BATCHES; b++) {
    await Promise.all(lanes.map((lane) => workload.op(lane)));
    await workload.afterBatch?.();
  }
  const used = process.cpuUsage(before);
  const stats = await client.info("commandstats");
  let redisUs = 0;
  for (const [, name, usec] of stats.matchAll(/^cmdstat_([^:]+):calls=\d+,usec=(\d+)/gm)) if (!/^(info|config)/.test(name!)) redisUs += Number(usec);
  const checks = CPU_BATCHES * workload.concurrency;
  return { nodeUs: (used.user + used.system) / checks, redisUs: redisUs / checks };
}

const p50s = (m: Measured) => m.reps.map((r) => r.p50Us);
const throughputs = (m: Measured) => m.reps.map((r) => r.opsPerSec);

/** Check latency and throughput: MemoryStore, RedisStore (single and batch), the PING floor, rate-limiter-flexible and the seed's two-round-trip check, in one run. */
export const checkLatencySection: Section = {
  id: "check-latency",
  title: "Check latency and throughput",
  async run(ctx) {
    const redis = await benchRedis();
    const policy = benchPolicy();
    const storeErrors: string[] = [];
    const watch = (breaker: Breaker): Breaker => {
      breaker.on("storeError", ({ error }) => storeErrors.push(error.message));
      return breaker;
    };
    const memory = watch(createBreaker({ store: new MemoryStore(), policy }));
    // failMode "closed": a Redis failure must show up as an error, never as a fast in-memory answer.
    const redisStore = new RedisStore({ url: redis.url, prefix: "bench:", failMode: "closed", commandTimeoutMs: 5_000 });
    const guarded = watch(createBreaker({ store: redisStore, policy }));
    const client = redis.client();
    try {
      const [memorySeq, memoryConcurrent] = checkerPair("memory", "MemoryStore check", breakerChecker(memory));
      const [redisSeq, redisConcurrent] = checkerPair("redis", "RedisStore check", breakerChecker(guarded));
      const [seedSeq, seedConcurrent] = checkerPair("seed", "Two-round-trip baseline check", twoRoundTripChecker(client, policy));
      const [rlfSeq, rlfConcurrent] = checkerPair("rlf", "rate-limiter-flexible RateLimiterRedis.consume", rateLimiterChecker(redis.client()));
      const batch = checkWorkload({
        id: "redis-batch-seq",
        label: `RedisStore checkBatch of ${BATCH_CALLS} calls (one model message), sequential`,
        checker: breakerChecker(guarded),
        sessions: sessionPool("batch"),
        concurrency: 1,
        calls: BATCH_CALLS,
      });
      // The store's round trip alone, to split a RedisStore check into store time and detection time.
      const recordOnly = checkWorkload({
        id: "redis-record-seq",
        label: "RedisStore record only (no detection), sequential",
        checker: storeChecker(redisStore, policy),
        sessions: sessionPool("record"),
        concurrency: 1,
      });
      const checks = [memorySeq!, memoryConcurrent!, redisSeq!, batch, recordOnly, redisConcurrent!, seedSeq!, seedConcurrent!, rlfSeq!, rlfConcurrent!];
      ctx.log("check latency: filling session windows");
      for (const w of checks) await w.prefill(policy.windowSize + 10);
      const workloads: Workload[] = [
        ...checks,
        pingWorkload("ping-seq", client, 1),
        pingWorkload("ping-concurrent", client, CONCURRENT_SESSIONS),
      ];
      ctx.log("check latency: measuring");
      const sequential = ctx.plan({ warmupBatches: 200, batches: 3_000, reps: 7 });
      const concurrent = ctx.plan({ warmupBatches: 10, batches: 120, reps: 7 });
      const seqWorkloads = workloads.filter((w) => w.concurrency === 1);
      const concurrentWorkloads = workloads.filter((w) => w.concurrency > 1);
      const measured = [
        ...(await measureInterleaved(seqWorkloads, sequential)),
        ...(await measureInterleaved(concurrentWorkloads, concurrent)),
      ];
      const states = Object.fromEntries(checks.map((w) => [w.id, { ...w.states }]));
      const offPath = checks.filter((w) => w.states.HALF_OPEN + w.states.OPEN > 0).map((w) => w.id);
      const scriptUs = await scriptServerTime(client, recordOnly);
      const batchScriptUs = await scriptServerTime(client, batch);
      const rlfScriptUs = await scriptServerTime(client, rlfSeq!);
      // Outcomes are reported between batches here too (untimed above): they count, as they would in an agent.
      const cpu = {
        memory: await cpuPerCheck(client, memoryConcurrent!),
        redis: await cpuPerCheck(client, redisConcurrent!),
        rateLimiter: await cpuPerCheck(client, rlfConcurrent!),
      };
      const byId = new Map(measured.map((m) => [m.id, m]));
      const get = (id: string): Measured => byId.get(id)!;
      const p50 = (id: string): number => get(id).p50Us.median;

      const ratios: Record<string, Spread> = {
        redisP50OverPing: pairedRatio(p50s(get("redis-seq")), p50s(get("ping-seq"))),
        recordP50OverPing: pairedRatio(p50s(get("redis-record-seq")), p50s(get("ping-seq"))),
        redisP50OverRateLimiter: pairedRatio(p50s(get("redis-seq")), p50s(get("rlf-seq"))),
        batchP50OverSingle: pairedRatio(p50s(get("redis-batch-seq")), p50s(get("redis-seq"))),
        redisThroughputOverMemoryConcurrent: pairedRatio(throughputs(get("redis-concurrent")), throughputs(get("memory-concurrent"))),
        redisThroughputOverSeedConcurrent: pairedRatio(throughputs(get("redis-concurrent")), throughputs(get("seed-concurrent"))),
        redisThroughputOverSeedSequential: pairedRatio(throughputs(get("redis-seq")), throughputs(get("seed-seq"))),
        redisThroughputOverRateLimiterConcurrent: pairedRatio(throughputs(get("redis-concurrent")), throughputs(get("rlf-concurrent"))),
        redisConcurrentP50OverPing: pairedRatio(p50s(get("redis-concurrent")), p50s(get("ping-concurrent"))),
      };
      const targets = [
        ratioTarget("redis-p50-vs-ping", "RedisStore check p50 / PING p50 (sequential)", ratios.redisP50OverPing!, "<=", MAX_PING_RATIO),
        ratioTarget(
          "redis-throughput-vs-memory-concurrent",
          `RedisStore checks/s / MemoryStore checks/s (${CONCURRENT_SESSIONS} concurrent sessions)`,
          ratios.redisThroughputOverMemoryConcurrent!,
          ">=",
          MIN_MEMORY_THROUGHPUT_RATIO,
        ),
        ratioTarget(
          "redis-throughput-vs-seed-concurrent",
          `RedisStore checks/s / two-round-trip baseline checks/s (${CONCURRENT_SESSIONS} concurrent sessions)`,
          ratios.redisThroughputOverSeedConcurrent!,
          ">=",
          MIN_SEED_THROUGHPUT_RATIO,
        ),
        ratioTarget("batch-vs-single", `RedisStore checkBatch of ${BATCH_CALLS} p50 / single check p50 (sequential)`, ratios.batchP50OverSingle!, "<=", MAX_BATCH_RATIO),
        ratioTarget(
          "redis-p50-vs-rate-limiter",
          "RedisStore check p50 / rate-limiter-flexible consume p50 (sequential)",
          ratios.redisP50OverRateLimiter!,
          "<=",
          MAX_RATE_LIMITER_RATIO,
        ),
      ];
      // The floor of a RedisStore check on this machine: one round trip, the record script's own time, and the in-process work of a check.
      const floorUs = p50("ping-seq") + scriptUs + p50("memory-seq");
      const ratioTable: TableData = {
        title: "Ratios (median of per-repetition ratios, with their range)",
        head: ["ratio", "value"],
        rows: [
          ["RedisStore p50 / PING p50, sequential", spread(ratios.redisP50OverPing!, "x")],
          ["RedisStore record-only p50 / PING p50, sequential", spread(ratios.recordP50OverPing!, "x")],
          ["RedisStore p50 / rate-limiter-flexible consume p50, sequential", spread(ratios.redisP50OverRateLimiter!, "x")],
          [`RedisStore checkBatch of ${BATCH_CALLS} p50 / single check p50, sequential`, spread(ratios.batchP50OverSingle!, "x")],
          ["RedisStore / MemoryStore checks per second, 64 concurrent", spread(ratios.redisThroughputOverMemoryConcurrent!, "x")],
          ["RedisStore / baseline checks per second, 64 concurrent", spread(ratios.redisThroughputOverSeedConcurrent!, "x")],
          ["RedisStore checks / rate-limiter-flexible consumes per second, 64 concurrent", spread(ratios.redisThroughputOverRateLimiterConcurrent!, "x")],
          ["RedisStore / baseline checks per second, sequential", spread(ratios.redisThroughputOverSeedSequential!, "x")],
          ["RedisStore p50 / PING p50, 64 concurrent", spread(ratios.redisConcurrentP50OverPing!, "x")],
        ],
      };
      return {
        id: this.id,
        title: this.title,
        tables: [latencyTable(measured), ratioTable],
        targets,
        notes: [
          `Every check runs the full detector set against a window of ${policy.windowSize} calls (mixed tools, arguments and outcomes; outcomes reported untimed between batches). The call-rate and run-length limits are lifted so a benchmark firehose is not itself stopped. The breakers are built as a user gets them (createBreaker with its default telemetry, no SDK registered).`,
          `Sequential rows take turns over ${CONCURRENT_SESSIONS} sessions; concurrent rows check one call in each of ${CONCURRENT_SESSIONS} sessions at once, latency counted from issue to answer. RedisStore runs with failMode "closed", so a Redis failure would show up as an error, not as an in-memory answer. rate-limiter-flexible runs RateLimiterRedis.consume (its INCRBY + PTTL script) on its own ioredis client to the same Redis, with a limit no run reaches.`,
          `Where a RedisStore check's time goes (sequential p50s): a PING round trip takes ${num(p50("ping-seq"))} µs; the record round trip alone ${num(p50("redis-record-seq"))} µs, of which Redis spends ${num(scriptUs)} µs running the record script (INFO commandstats over ${SCRIPT_SAMPLE} records, window ${policy.windowSize}; rate-limiter-flexible's script: ${num(rlfScriptUs)} µs); the in-process work of a check (a MemoryStore check: canonical arguments, every detector, the verdict) ${num(p50("memory-seq"))} µs; the whole check ${num(p50("redis-seq"))} µs.`,
          `The floor those parts add up to (round trip + record script + in-process check) is ${num(floorUs)} µs, ${(floorUs / p50("ping-seq")).toFixed(2)}x PING; the measured check is ${(p50("redis-seq") / floorUs).toFixed(2)}x that floor. A check cannot come under the floor without a shorter script or less work in process; across a real network the round trip dominates: by arithmetic (not measured here), adding a 500 µs RTT to both sides would put a RedisStore check near ${((500 + p50("redis-seq")) / (500 + p50("ping-seq"))).toFixed(2)}x PING.`,
          `Where a concurrent check's CPU goes (${CPU_BATCHES} batches of ${CONCURRENT_SESSIONS} run alone after the measurement, outcomes reported between batches): this process spends ${num(cpu.memory.nodeUs)} µs per MemoryStore check, ${num(cpu.redis.nodeUs)} µs per RedisStore check (of which the round trip's client side and the replay) and ${num(cpu.rateLimiter.nodeUs)} µs per rate-limiter-flexible consume; Redis spends ${num(cpu.redis.redisUs)} µs per RedisStore check and completion and ${num(cpu.rateLimiter.redisUs)} µs per consume. While the benchmark, Redis and the rest of the machine share its ${os.cpus().length} cores, the concurrent ratio to MemoryStore cannot exceed about ${(cpu.memory.nodeUs / (cpu.redis.nodeUs + cpu.redis.redisUs)).toFixed(2)}x (MemoryStore's CPU per check over the RedisStore check's CPU on both sides); with a core free for Redis, about ${(cpu.memory.nodeUs / cpu.redis.nodeUs).toFixed(2)}x.`,
          `A batch of ${BATCH_CALLS} is one script call (${num(batchScriptUs)} µs in Redis for the ${BATCH_CALLS} appends) and ${BATCH_CALLS} decisions in process, each call seeing the earlier ones as running: the extra ${BATCH_CALLS - 1} decisions (about ${num(p50("memory-seq"))} µs each, less the per-check overhead) are what it costs beyond a single check.`,
          storeErrors.length === 0
            ? "No store errors during the run."
            : `${storeErrors.length} store errors during the run (results are suspect): ${storeErrors[0]}`,
          offPath.length === 0
            ? "Every measured check stayed CLOSED (the normal path)."
            : `Some checks left the CLOSED path (${offPath.join(", ")}); see data.states.`,
        ],
        data: {
          policy: { windowSize: policy.windowSize },
          plans: { sequential, concurrent },
          measured,
          ratios,
          recordScriptServerUs: scriptUs,
          batchScriptServerUs: batchScriptUs,
          rateLimiterScriptServerUs: rlfScriptUs,
          cpuPerConcurrentCheck: cpu,
          floorUs,
          states,
          storeErrors: storeErrors.length,
        },
      };
    } finally {
      await redisStore.close();
    }
  },
};
