import { createBreaker, RedisStore, type Breaker } from "../../breaker/index.js";
import { sessionKeys } from "../../breaker/stores/redis-keys.js";
import { twoRoundTripChecker } from "../baselines/two-round-trip-checker.js";
import { benchCall, benchPolicy } from "../lib/calls.js";
import { breakerChecker, checkWorkload, type Checker } from "../lib/check-workload.js";
import { benchRedis } from "../lib/redis.js";
import { checkTarget, type Section } from "../lib/section.js";
import { spreadOf, type Spread } from "../lib/stats.js";
import { tokens } from "../report/format.js";

/** Window sizes the memory per session is measured at. */
export const MEMORY_WINDOWS = [12, 50] as const;

const TTL_SECONDS = 1;
const gib = (bytesPerSession: number): string => ((bytesPerSession * 1e6) / 2 ** 30).toFixed(1);
// Past every TTL, plus a margin for Redis's active expiry cycle (10 times a second).
const TTL_WAIT_MS = TTL_SECONDS * 1_000 + 1_000;

type MemoryClient = { memory(sub: "USAGE", key: string, samples: "SAMPLES", count: number): Promise<number | null> };

async function bytesOf(client: MemoryClient, keys: readonly string[]): Promise<number> {
  const sizes = await Promise.all(keys.map((key) => client.memory("USAGE", key, "SAMPLES", 0)));
  return sizes.reduce<number>((sum, n) => sum + (n ?? 0), 0);
}

// Fill sessions past their window (so they hold a full one), with outcomes reported.
async function fill(checker: Checker, sessions: string[], calls: number): Promise<void> {
  const workload = checkWorkload({ id: "fill", label: "fill", checker, sessions, concurrency: sessions.length });
  await workload.prefill(calls);
}

async function loopUntilOpen(breaker: Breaker, session: string): Promise<boolean> {
  const call = benchCall(session, 0);
  for (let i = 0; i < 10; i++) {
    const verdict = await breaker.check(session, { ...call.request, id: `${call.request.id}-${i}` });
    if (!verdict.allowed) return true;
    await breaker.complete(session, verdict.callId, { kind: "error", fingerprint: "same-error" });
  }
  return false;
}

/** Redis memory: bytes per active session at two window sizes, and keys left once every TTL has passed. */
export const redisMemorySection: Section = {
  id: "redis-memory",
  title: "Redis memory",
  async run(ctx) {
    const redis = await benchRedis();
    const client = redis.client();
    const sessionCount = ctx.quick ? 40 : 200;
    const rows: { window: number; store: Spread; seed: Spread; keys: Record<string, number> }[] = [];

    for (const windowSize of MEMORY_WINDOWS) {
      ctx.log(`redis memory: ${sessionCount} sessions at window ${windowSize}`);
      await client.flushall();
      const policy = benchPolicy(windowSize);
      const prefix = `mem${windowSize}:`;
      const store = new RedisStore({ url: redis.url, prefix, failMode: "closed", commandTimeoutMs: 5_000 });
      try {
        const sessions = Array.from({ length: sessionCount }, (_, i) => `memory-${windowSize}-${i}`);
        await fill(breakerChecker(createBreaker({ store, policy })), sessions, windowSize + 10);
        await fill(twoRoundTripChecker(client, policy, "seed:"), sessions, windowSize + 10);
        const storeBytes: number[] = [];
        const seedBytes: number[] = [];
        const byKey = { meta: [] as number[], window: [] as number[], log: [] as number[] };
        for (const id of sessions) {
          const keys = sessionKeys(prefix, id);
          for (const kind of ["meta", "window", "log"] as const) byKey[kind].push(await bytesOf(client, [keys[kind]]));
          storeBytes.push(byKey.meta.at(-1)! + byKey.window.at(-1)! + byKey.log.at(-1)!);
          seedBytes.push(await bytesOf(client, [`seed:${id}:window`, `seed:${id}:state`]));
        }
        rows.push({
          window: windowSize,
          store: spreadOf(storeBytes),
          seed: spreadOf(seedBytes),
          keys: Object.fromEntries(Object.entries(byKey).map(([k, v]) => [k, spreadOf(v).median])),
        });
      } finally {
        await store.close();
      }
    }

    ctx.log(`redis memory: TTL of ${TTL_SECONDS} s, waiting for expiry`);
    await client.flushall();
    const ttlStore = new RedisStore({ url: redis.url, prefix: "ttl:", failMode: "closed", commandTimeoutMs: 5_000 });
    let keysBefore = 0;
    let keysAfter = Number.NaN;
    let opened = 0;
    try {
      const policy = benchPolicy(50, TTL_SECONDS);
      const breaker = createBreaker({ store: ttlStore, policy });
      const sessions = Array.from({ length: 50 }, (_, i) => `ttl-${i}`);
      await fill(breakerChecker(breaker), sessions.slice(0, 40), 20);
      // The rest loop until the circuit opens, so transitions (circuit writes) are covered too.
      for (const session of sessions.slice(40)) if (await loopUntilOpen(breaker, session)) opened++;
      keysBefore = await client.dbsize();
      await new Promise((resolve) => setTimeout(resolve, TTL_WAIT_MS));
      keysAfter = await client.dbsize();
    } finally {
      await ttlStore.close();
    }

    const at = (w: number) => rows.find((r) => r.window === w)!;
    return {
      id: this.id,
      title: this.title,
      tables: [
        {
          title: `Bytes per active session (MEMORY USAGE summed over the session's keys; median (min–max) over ${sessionCount} sessions with a full window)`,
          head: ["window (calls)", "RedisStore bytes", "of which meta / window / outcome log", "seed layout bytes (window + state)"],
          rows: rows.map((r) => [
            String(r.window),
            `${tokens(r.store.median)} (${tokens(r.store.min)}–${tokens(r.store.max)})`,
            `${tokens(r.keys.meta!)} / ${tokens(r.keys.window!)} / ${tokens(r.keys.log!)}`,
            `${tokens(r.seed.median)} (${tokens(r.seed.min)}–${tokens(r.seed.max)})`,
          ]),
        },
        {
          title: `Expiry: 50 sessions written with ttlSeconds ${TTL_SECONDS} (40 healthy, 10 looping until the circuit opened: ${opened} did)`,
          head: ["keys before", `keys ${TTL_WAIT_MS / 1_000} s later (DBSIZE)`],
          rows: [[String(keysBefore), String(keysAfter)]],
        },
      ],
      targets: [
        checkTarget({
          id: "keys-after-ttl",
          description: `Keys left once every TTL has passed (DBSIZE ${TTL_WAIT_MS / 1_000} s after the last write, ttlSeconds ${TTL_SECONDS})`,
          measured: keysAfter,
          comparison: "==",
          limit: 0,
          unit: "keys",
        }),
      ],
      notes: [
        `At these sizes a million active sessions take about ${gib(at(50).store.median)} GiB at window 50 and ${gib(at(12).store.median)} GiB at window 12 (about ${tokens(at(50).keys.window! / 50)} bytes per call in the window list).`,
        "Sessions are filled with the same healthy call mix as the latency runs (no token usage reported, so the usage counters are absent from the meta hash).",
        "The seed layout is the two-round-trip baseline's: one list of call records and one hash of state and outcomes per session.",
      ],
      data: { sessionCount, rows, ttl: { ttlSeconds: TTL_SECONDS, waitMs: TTL_WAIT_MS, keysBefore, keysAfter, opened } },
    };
  },
};
