import net from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBreaker } from "../../breaker/breaker.js";
import type { BreakerEvents } from "../../breaker/events.js";
import { sessionKeys } from "../../breaker/stores/redis-keys.js";
import type { RedisStore } from "../../breaker/stores/redis-store.js";
import type { StoreEvent } from "../../breaker/stores/store.js";
import type { ToolCallRequest } from "../../breaker/types.js";
import { describeRedis, startRedisServer, waitFor, type RedisServer } from "../support/redis-server.js";
import { TestStores } from "./redis-test-stores.js";

// Short timeouts keep the suite quick; the defaults (500 / 1,000 ms) behave the same.
const FAST = { commandTimeoutMs: 300, connectTimeoutMs: 500 };

function guarded(store: RedisStore) {
  const breaker = createBreaker({ store, policy: { detectors: { identical_repeat: { warn: 3, block: 4 } } } });
  const storeErrors: BreakerEvents["storeError"][] = [];
  breaker.on("storeError", (event) => storeErrors.push(event));
  return { breaker, storeErrors };
}

let seq = 0;
const call = (args: unknown = { q: seq }): ToolCallRequest => ({ id: `call-${++seq}`, name: "search", args });

/** Wait until the store answers from Redis again: no error thrown and no new fallback event. */
async function usingRedisAgain(store: RedisStore, events: StoreEvent[] = []): Promise<void> {
  const fallbacks = () => events.filter((e) => e.type === "fallback").length;
  await waitFor("the store to use Redis again", async () => {
    const before = fallbacks();
    await store.snapshot("probe");
    return fallbacks() === before;
  });
}

describeRedis("RedisStore when Redis fails", "binary", () => {
  let server: RedisServer;
  const stores = new TestStores(() => server.url);
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    server?.resume();
    await stores.cleanup();
    await server?.stop();
  });

  it("failMode open: a killed Redis falls back to memory with a warning, and Redis is used again after a restart", async () => {
    const events: StoreEvent[] = [];
    const store = stores.create({ ...FAST, failMode: "open", onEvent: (e) => events.push(e) });
    const { breaker, storeErrors } = guarded(store);
    const outages: BreakerEvents["storeOutage"][] = [];
    const recoveries: BreakerEvents["storeRecovered"][] = [];
    breaker.on("storeOutage", (e) => outages.push(e));
    breaker.on("storeRecovered", (e) => recoveries.push(e));
    const healthy = await breaker.check("s1", call());
    expect(healthy.step).toBe(1);
    expect(healthy.degraded).toBeUndefined();

    await server.kill();
    // In memory the session starts over, and loop detection still works there.
    const same = { q: "same" };
    const during = [];
    for (let i = 0; i < 4; i++) during.push(await breaker.check("s1", call(same)));
    expect(during.map((v) => [v.step, v.state])).toEqual([[1, "CLOSED"], [2, "CLOSED"], [3, "HALF_OPEN"], [4, "OPEN"]]);
    // Every verdict served from memory says so, with the reason.
    for (const verdict of during) expect(verdict.degraded?.reason).toContain(`Redis at ${server.url} failed on record`);
    // One outage event however many calls it touched; a fallback event per operation.
    expect(events[0]).toMatchObject({ type: "outage", operation: "record", sessionId: "s1", failMode: "open" });
    expect(events.filter((e) => e.type === "outage")).toHaveLength(1);
    expect(events[1]).toMatchObject({ type: "fallback", operation: "record", sessionId: "s1" });
    const fallback = events[1] as Extract<StoreEvent, { type: "fallback" }>;
    expect(fallback.error).toMatchObject({ code: "STORE_UNAVAILABLE" });
    expect(fallback.error.message).toContain(`Redis at ${server.url}`);
    expect(storeErrors.filter((e) => e.action === "fallback").length).toBeGreaterThanOrEqual(4);
    expect(outages).toHaveLength(1);
    expect(outages[0]).toMatchObject({ operation: "record", failMode: "open" });

    await server.restart();
    await usingRedisAgain(store, events);
    expect(events.filter((e) => e.type === "recovered")).toHaveLength(1);
    expect(recoveries).toHaveLength(1);
    expect(recoveries[0]!.downMs).toBeGreaterThan(0);
    expect(recoveries[0]!.failedOperations).toBeGreaterThanOrEqual(4);
    // The restarted server kept nothing: step 1 again proves the call went to Redis, not to memory (step 5).
    const back = await breaker.check("s1", call());
    expect([back.step, back.degraded]).toEqual([1, undefined]);
    const admin = new Redis(server.url);
    expect(await admin.exists(sessionKeys(store.prefix, "s1").meta)).toBe(1);
    await admin.quit();

    // The next outage starts from an empty memory, not from the first outage's OPEN session.
    await server.kill();
    const second = await breaker.check("s1", call());
    expect([second.step, second.state, second.allowed]).toEqual([1, "CLOSED", true]);
    expect(second.degraded).toBeDefined();
    expect(events.filter((e) => e.type === "outage")).toHaveLength(2);
    await server.restart();
    await usingRedisAgain(store, events);
  });

  it("failMode closed: a dead Redis blocks the call with a store_unavailable frame, then recovers", async () => {
    const events: StoreEvent[] = [];
    const store = stores.create({ ...FAST, failMode: "closed", onEvent: (e) => events.push(e) });
    const { breaker, storeErrors } = guarded(store);
    expect((await breaker.check("s1", call())).allowed).toBe(true);

    await server.kill();
    const verdict = await breaker.check("s1", call());
    expect(verdict).toMatchObject({ allowed: false, state: "OPEN", step: 0 });
    expect(verdict.findings).toHaveLength(1);
    expect(verdict.findings[0]).toMatchObject({ detector: "store_unavailable", severity: "block" });
    expect(verdict.findings[0]!.message).toContain(`Redis at ${server.url}`);
    expect(verdict.degraded?.reason).toContain(`Redis at ${server.url} failed on record`);
    expect(storeErrors.map((e) => e.action)).toEqual(["blocked"]);
    const batch = await breaker.checkBatch("s1", [call(), call()]);
    expect(batch.map((v) => [v.allowed, v.findings[0]?.detector, Boolean(v.degraded)])).toEqual([
      [false, "store_unavailable", true],
      [false, "store_unavailable", true],
    ]);
    await expect(store.snapshot("s1")).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
    // Closed mode emits no fallback events: one outage, then the recovery.
    expect(events.map((e) => e.type)).toEqual(["outage"]);

    await server.restart();
    await usingRedisAgain(store);
    expect(events.map((e) => e.type)).toEqual(["outage", "recovered"]);
    const back = await breaker.check("s1", call());
    expect(back).toMatchObject({ allowed: true, step: 1 });
    expect(back.degraded).toBeUndefined();
  });

  it("a paused server (SIGSTOP) past the command timeout: closed blocks, open falls back, both recover on SIGCONT", async () => {
    const events: StoreEvent[] = [];
    const closed = guarded(stores.create({ ...FAST, failMode: "closed" }));
    const openStore = stores.create({ ...FAST, failMode: "open", onEvent: (e) => events.push(e) });
    const open = guarded(openStore);
    await closed.breaker.check("s1", call());
    await open.breaker.check("s1", call());

    server.pause();
    try {
      const blocked = await closed.breaker.check("s1", call());
      expect(blocked).toMatchObject({ allowed: false, state: "OPEN" });
      expect(blocked.findings[0]!.message).toMatch(/timed out|did not answer/);
      const allowed = await open.breaker.check("s1", call());
      expect(allowed).toMatchObject({ allowed: true, step: 1 });
      expect(events.map((e) => [e.type, e.operation])).toEqual([["outage", "record"], ["fallback", "record"]]);
    } finally {
      server.resume();
    }
    await usingRedisAgain(closed.breaker.store as RedisStore);
    await usingRedisAgain(openStore, events);
    // Redis runs the stalled write on SIGCONT, so it holds 2 calls and this is step 3 (memory would say 2).
    expect((await open.breaker.check("s1", call())).step).toBe(3);
    expect((await closed.breaker.check("s1", call())).step).toBe(3);
  });

  it("CLIENT PAUSE past the command timeout: checks fall back; after CLIENT UNPAUSE they use Redis again", async () => {
    const events: StoreEvent[] = [];
    const store = stores.create({ ...FAST, failMode: "open", onEvent: (e) => events.push(e) });
    const { breaker } = guarded(store);
    expect((await breaker.check("s1", call())).step).toBe(1);
    const admin = new Redis(server.url);
    await admin.call("CLIENT", "PAUSE", "20000", "WRITE");
    try {
      expect(await breaker.check("s1", call())).toMatchObject({ allowed: true, step: 1 });
      expect(events.map((e) => e.type)).toEqual(["outage", "fallback"]);
    } finally {
      await admin.call("CLIENT", "UNPAUSE");
      await admin.quit();
    }
    await usingRedisAgain(store, events);
    // The paused write ran after the pause too, so Redis holds 2 or 3 calls; memory would say 2.
    expect((await breaker.check("s1", call())).step).toBeGreaterThanOrEqual(3);
  });

  it("a server that accepts connections but never answers costs a check only the timeouts", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    const silentStores = new TestStores(() => url);
    try {
      const closed = guarded(silentStores.create({ ...FAST, failMode: "closed" }));
      const blocked = await closed.breaker.check("s1", call());
      expect(blocked).toMatchObject({ allowed: false, state: "OPEN" });
      expect(blocked.findings[0]!.detector).toBe("store_unavailable");
      const open = guarded(silentStores.create({ ...FAST, failMode: "open" }));
      expect(await open.breaker.check("s1", call())).toMatchObject({ allowed: true, step: 1 });
      expect(open.storeErrors.map((e) => e.action)).toContain("fallback");
    } finally {
      await silentStores.cleanup();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("after a failure, skips Redis for retryAfterMs instead of waiting out a timeout per operation", async () => {
    // A server that passes the client's ready check (INFO) and then answers
    // nothing: every command it receives is one the store waited on.
    let received = "";
    const sockets = new Set<net.Socket>();
    const info = "# Server\r\nredis_version:7.0.0\r\nloading:0\r\n";
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("data", (chunk) => {
        const text = chunk.toString("latin1");
        received += text;
        // Answer the connection handshake, in order: CLIENT SETINFO, then INFO.
        for (const [command] of text.matchAll(/\r\n(client|info)\r\n/gi)) {
          socket.write(/info/i.test(command) ? `$${info.length}\r\n${info}\r\n` : "+OK\r\n");
        }
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    const silentStores = new TestStores(() => url);
    const evalsSent = () => (received.match(/\r\neval(sha)?\r\n/gi) ?? []).length;
    try {
      const store = silentStores.create({ ...FAST, failMode: "open", retryAfterMs: 60_000 });
      const { breaker } = guarded(store);
      const same = { q: "same" };
      await breaker.check("s1", call(same));
      const afterFirst = evalsSent();
      expect(afterFirst).toBe(1);
      // Three more checks, the third a trip with its transition: all answered from memory, none sent.
      const verdicts = [];
      for (let i = 0; i < 3; i++) verdicts.push(await breaker.check("s1", call(same)));
      expect(verdicts.map((v) => v.state)).toEqual(["CLOSED", "HALF_OPEN", "OPEN"]);
      expect(evalsSent()).toBe(afterFirst);
    } finally {
      await silentStores.cleanup();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
