import { afterAll, beforeAll, expect, it } from "vitest";
import { describeRedis, standaloneRedis, uniquePrefix } from "../support/redis-server.js";
import { TestStores } from "./redis-test-stores.js";
import { WorkerProcess as Worker } from "./worker-process.js";

const WORKERS = 5;

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describeRedis("RedisStore across processes", "server", () => {
  let redis: Awaited<ReturnType<typeof standaloneRedis>> | undefined;
  const prefix = uniquePrefix("atomic");
  const stores = new TestStores(() => redis!.url);
  const workers: Worker[] = [];
  beforeAll(async () => {
    redis = await standaloneRedis();
    for (let i = 0; i < WORKERS; i++) workers.push(new Worker());
    const replies = await Promise.all(workers.map((w) => w.ask({ type: "init", url: redis!.url, prefix })));
    expect(replies.every((r) => r.type === "ready")).toBe(true);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await stores.cleanup();
    await redis?.stop();
  });

  it(`gives ${WORKERS} processes checking one session at once one linear history`, async () => {
    const perWorker = 20;
    const results = await Promise.all(
      workers.map((w, k) => w.run("linear", range(perWorker).map((i) => ({ id: `w${k}-${i}`, name: "search", args: { k, i } })))),
    );
    const verdicts = results.flat();
    expect(verdicts.every((v) => v.detector !== "store_unavailable")).toBe(true);
    expect(verdicts.map((v) => v.step).sort((a, b) => a - b)).toEqual(range(WORKERS * perWorker).map((i) => i + 1));
    // Every process's view agrees with what Redis holds: one order of calls.
    const store = stores.create({ prefix });
    const snapshot = (await store.snapshot("linear"))!;
    const stepOf = new Map(verdicts.map((v) => [v.callId, v.step]));
    expect(snapshot.window.map((c) => c.step)).toEqual(range(WORKERS * perWorker).map((i) => i + 1));
    expect(snapshot.window.map((c) => stepOf.get(c.id))).toEqual(snapshot.window.map((c) => c.step));
  });

  it(`admits exactly 3 of 50 identical checks sent at once by ${WORKERS} processes, every time`, async () => {
    for (let round = 0; round < 5; round++) {
      const session = `burst-${round}`;
      const results = await Promise.all(
        workers.map((w, k) => w.run(session, range(50 / WORKERS).map((i) => ({ id: `r${round}-w${k}-${i}`, name: "search", args: { q: "same" } })))),
      );
      const verdicts = results.flat();
      expect(verdicts.every((v) => v.detector !== "store_unavailable")).toBe(true);
      expect(verdicts.filter((v) => v.allowed).map((v) => v.step).sort((a, b) => a - b)).toEqual([1, 2, 3]);
      expect(new Set(verdicts.map((v) => v.step)).size).toBe(50);
    }
  });
});
