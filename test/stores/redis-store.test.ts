import { createHash } from "node:crypto";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBreaker } from "../../breaker/breaker.js";
import { MemoryStore } from "../../breaker/stores/memory-store.js";
import { sessionKeys } from "../../breaker/stores/redis-keys.js";
import { REDIS_SCRIPTS } from "../../breaker/stores/redis-scripts.js";
import type { BreakerStore } from "../../breaker/stores/store.js";
import type { CircuitState, OutcomeKind } from "../../breaker/types.js";
import { RedisStore } from "../../breaker/stores/redis-store.js";
import { describeRedis, standaloneRedis, uniquePrefix } from "../support/redis-server.js";
import { newCall } from "./store-contract.js";
import { TestStores } from "./redis-test-stores.js";

const LIMITS = { maxEntries: 50, ttlSeconds: 100 };

async function scanKeys(admin: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  for await (const batch of admin.scanStream({ match: pattern, count: 1_000 })) keys.push(...(batch as string[]));
  return keys.sort();
}

// Calls per script command (EVAL / EVALSHA), from INFO commandstats.
async function scriptCalls(admin: Redis): Promise<{ eval: number; evalsha: number }> {
  const info = await admin.info("commandstats");
  const calls = (name: string): number => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, "m").exec(info)?.[1] ?? 0);
  return { eval: calls("eval"), evalsha: calls("evalsha") };
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describeRedis("RedisStore on Redis: scripts, keys, bounds", "server", () => {
  let redis: Awaited<ReturnType<typeof standaloneRedis>> | undefined;
  let admin: Redis;
  const stores = new TestStores(() => redis!.url);
  beforeAll(async () => {
    redis = await standaloneRedis();
    admin = new Redis(redis.url);
  });
  afterAll(async () => {
    await stores.cleanup();
    await admin?.quit();
    await redis?.stop();
  });

  it("ships each Lua script with the SHA1 that Redis computes for it", async () => {
    for (const script of Object.values(REDIS_SCRIPTS)) {
      expect(createHash("sha1").update(script.lua).digest("hex")).toBe(script.sha1);
      expect(await admin.script("LOAD", script.lua)).toBe(script.sha1);
    }
  });

  it("runs the scripts by EVALSHA and reloads them by EVAL after SCRIPT FLUSH", async () => {
    const store = stores.create();
    await store.record("s1", newCall("a"), LIMITS);
    const before = await scriptCalls(admin);
    for (let i = 0; i < 4; i++) await store.record("s1", newCall(`b${i}`), LIMITS);
    const warm = await scriptCalls(admin);
    expect(warm.evalsha - before.evalsha).toBeGreaterThanOrEqual(4);
    await admin.script("FLUSH");
    expect(await admin.script("EXISTS", REDIS_SCRIPTS.record.sha1)).toEqual([0]);
    const result = await store.record("s1", newCall("c"), LIMITS);
    expect([result.record.step, result.duplicate]).toEqual([6, false]);
    expect(await admin.script("EXISTS", REDIS_SCRIPTS.record.sha1)).toEqual([1]);
    expect((await scriptCalls(admin)).eval - warm.eval).toBeGreaterThanOrEqual(1);
  });

  it("keeps three keys per session under the prefix and one hash tag, each with a TTL that writes refresh", async () => {
    const store = stores.create();
    await store.record("user:1", newCall("a"), LIMITS);
    await store.complete("user:1", "a", { kind: "ok", fingerprint: "f" }, LIMITS);
    await store.transition("user:1", { state: "HALF_OPEN", openUntil: 0, run: "r1", since: 0, findings: [], asOf: 1 }, LIMITS);
    const keys = await scanKeys(admin, store.prefix);
    expect(keys).toEqual(Object.values(sessionKeys(store.prefix, "user:1")).sort());
    for (const key of keys) {
      expect(key).toMatch(new RegExp(`^${escape(store.prefix)}\\{[A-Za-z0-9_-]{22}\\}:(meta|window|log)$`));
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(100_000);
    }
    await store.complete("user:1", "a", { kind: "ok", fingerprint: "f" }, { ...LIMITS, ttlSeconds: 1_000 });
    for (const key of keys) expect(await admin.pttl(key)).toBeGreaterThan(100_000);
  });

  it("bounds a session's memory: the list, the outcome log and the visible window stay capped", async () => {
    const store = stores.create();
    const limits = { ...LIMITS, maxEntries: 5 };
    for (let i = 0; i < 30; i++) {
      await store.record("s1", newCall(`c${i}`, { n: i }), limits);
      await store.complete("s1", `c${i}`, { kind: "ok", fingerprint: `f${i}` }, limits);
    }
    const keys = sessionKeys(store.prefix, "s1");
    // Nobody claims verdicts here, so the list keeps what a replay of every undecided step would need: twice the window.
    expect(await admin.llen(keys.window)).toBe(10);
    expect(await admin.llen(keys.log)).toBe(10);
    const snap = (await store.snapshot("s1"))!;
    expect(snap.window.map((c) => c.outcome?.fingerprint)).toEqual(["f25", "f26", "f27", "f28", "f29"]);
  });

  it("keeps exactly the window when a breaker reports its verdicts along with its outcomes", async () => {
    const store = stores.create();
    // Whatever the verdicts (call_rate opens the circuit here), each one is claimed.
    const breaker = createBreaker({ store, policy: { windowSize: 5, detectors: { call_rate: { warn: 4, block: 5 } } } });
    for (let i = 0; i < 30; i++) {
      const verdict = await breaker.check("s1", { id: `c${i}`, name: "search", args: { page: i } });
      await breaker.complete("s1", verdict.callId, { output: { page: i } });
    }
    const keys = sessionKeys(store.prefix, "s1");
    expect(await admin.llen(keys.window)).toBe(5);
    expect(await admin.hget(keys.meta, "decided")).toBe("30");
  });

  it("stamps calls with Redis TIME in epoch milliseconds", async () => {
    const store = stores.create();
    // Generous bound: an external REDIS_URL server may run on another host's clock.
    const skewMs = 60_000;
    const before = Date.now();
    const result = await store.record("s1", newCall("a"), LIMITS);
    const after = Date.now();
    expect(Number.isInteger(result.now)).toBe(true);
    expect(result.now).toBeGreaterThanOrEqual(before - skewMs);
    expect(result.now).toBeLessThanOrEqual(after + skewMs);
    expect((await store.snapshot("s1"))!.window[0]!.at).toBe(result.now);
  });

  it("maps hostile session ids to well-formed keys of their own", async () => {
    const store = stores.create();
    const hostile = ["{", "}", "}{", "*", "?", "[a-z]", ":", "\\", "\n", "\r\n", "a}:meta", "\ud800", "\ud801", "x".repeat(10_240)];
    for (const [i, id] of hostile.entries()) await store.record(id, newCall(`c${i}`), LIMITS);
    const keys = await scanKeys(admin, store.prefix);
    // meta and window per session (outcomes appear with the first outcome).
    expect(keys).toHaveLength(hostile.length * 2);
    const shape = new RegExp(`^${escape(store.prefix)}\\{[A-Za-z0-9_-]{22}\\}:(meta|window)$`);
    for (const key of keys) expect(key).toMatch(shape);
    expect((await store.sessions()).sort()).toEqual([...hostile].sort());
    for (const [i, id] of hostile.entries()) expect((await store.snapshot(id))!.window.map((c) => c.id)).toEqual([`c${i}`]);
    for (const id of hostile) await store.reset(id);
    expect(await scanKeys(admin, store.prefix)).toEqual([]);
  });

  it("works with an ioredis client you pass in, and leaves it open when the store closes", async () => {
    const client = new Redis(redis!.url);
    const store = new RedisStore({ client, prefix: uniquePrefix("own"), failMode: "closed" });
    try {
      expect((await store.record("s1", newCall("a"), LIMITS)).record.step).toBe(1);
      expect((await store.snapshot("s1"))!.totalCalls).toBe(1);
      await store.reset("s1");
      await store.close();
      expect(await client.ping()).toBe("PONG");
    } finally {
      await client.quit();
    }
    const prefixed = new Redis(redis!.url, { keyPrefix: "x:", lazyConnect: true });
    expect(() => new RedisStore({ client: prefixed })).toThrow(expect.objectContaining({ code: "INVALID_STORE_OPTIONS" }));
    prefixed.disconnect();
  });

  it("answers like MemoryStore, operation by operation, on random sequences", async () => {
    type Op =
      | { op: "record"; id: number; run: number; n: number; tokens: number }
      | { op: "complete"; id: number; kind: OutcomeKind }
      | { op: "transition"; state: CircuitState; run: number; asOf: number }
      | { op: "snapshot" };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 4, arbitrary: fc.record({ op: fc.constant("record" as const), id: fc.nat(7), run: fc.nat(1), n: fc.nat(2), tokens: fc.nat(50) }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant("complete" as const), id: fc.nat(7), kind: fc.constantFrom<OutcomeKind>("ok", "empty", "error") }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant("transition" as const), state: fc.constantFrom<CircuitState>("CLOSED", "HALF_OPEN", "OPEN"), run: fc.nat(1), asOf: fc.nat(4) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant("snapshot" as const) }) },
    );
    const limits = { maxEntries: 4, ttlSeconds: 100 };
    const apply = (store: BreakerStore, session: string, o: Op): Promise<unknown> => {
      switch (o.op) {
        case "record":
          return store.record(session, newCall(`id${o.id}`, { run: `r${o.run}`, n: o.n, usage: { inputTokens: o.tokens, outputTokens: 1, costMicros: o.tokens * 3 } }), limits);
        case "complete":
          return store.complete(session, `id${o.id}`, { kind: o.kind, fingerprint: `f${o.id}` }, limits);
        case "transition":
          return store.transition(session, { state: o.state, openUntil: 0, run: `r${o.run}`, since: 0, findings: [], asOf: o.asOf }, limits);
        case "snapshot":
          return store.snapshot(session);
      }
    };
    // The clocks differ by design; everything else must not.
    const timeless = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null, (k, v) => (k === "at" || k === "now" ? 0 : v)));
    const redisStore = stores.create();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        const session = `prop-${run++}`;
        const memory = new MemoryStore();
        for (const o of ops) {
          expect(timeless(await apply(redisStore, session, o))).toEqual(timeless(await apply(memory, session, o)));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("gives two workers that take turns on a session the same answers as one MemoryStore", async () => {
    // Each RedisStore keeps the last window it saw and asks only for what is
    // new: turns between two of them, trims and resets must not make either
    // answer from a stale window.
    type Op = { op: "record"; id: number; run: number; via: number } | { op: "complete"; id: number; via: number } | { op: "reset"; via: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 6, arbitrary: fc.record({ op: fc.constant("record" as const), id: fc.nat(9), run: fc.nat(1), via: fc.nat(1) }) },
      { weight: 3, arbitrary: fc.record({ op: fc.constant("complete" as const), id: fc.nat(9), via: fc.nat(1) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant("reset" as const), via: fc.nat(1) }) },
    );
    const limits = { maxEntries: 4, ttlSeconds: 100 };
    const apply = (store: BreakerStore, session: string, o: Op): Promise<unknown> => {
      switch (o.op) {
        case "record":
          return store.record(session, newCall(`id${o.id}`, { run: `r${o.run}` }), limits);
        case "complete":
          return store.complete(session, `id${o.id}`, { kind: "ok", fingerprint: `f${o.id}` }, limits);
        case "reset":
          return store.reset(session);
      }
    };
    const timeless = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null, (k, v) => (k === "at" || k === "now" ? 0 : v)));
    const prefix = uniquePrefix("turns");
    const workers = [stores.create({ prefix }), stores.create({ prefix })];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const session = `turns-${run++}`;
        const memory = new MemoryStore();
        for (const o of ops) {
          expect(timeless(await apply(workers[o.via]!, session, o))).toEqual(timeless(await apply(memory, session, o)));
        }
      }),
      { numRuns: 150 },
    );
  });
});
