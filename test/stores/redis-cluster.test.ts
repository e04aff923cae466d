import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metaKeyPattern, sessionKeys } from "../../breaker/stores/redis-keys.js";
import { describeRedis, startRedisCluster, type RedisCluster } from "../support/redis-server.js";
import { newCall, storeContract } from "./store-contract.js";
import { sleep, TestStores } from "./redis-test-stores.js";

const LIMITS = { maxEntries: 50, ttlSeconds: 60 };

describeRedis("RedisStore on a 3-master Redis Cluster", "binary", () => {
  let cluster: RedisCluster | undefined;
  const stores = new TestStores(() => cluster!.url);
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
  });
  afterAll(async () => {
    await stores.cleanup();
    await cluster?.stop();
  });

  describe("store contract", () => {
    storeContract({ create: () => stores.create({ cluster: true }), elapse: sleep });
  });

  it("puts every key of a session in one slot, whatever the id", async () => {
    const store = stores.create({ cluster: true });
    const hostile = ["{", "}", "{a}", "*", ":", "\n", "x".repeat(10_240), "plain"];
    for (const id of hostile) await store.record(id, newCall("c1"), LIMITS);
    const node = cluster!.nodes[0]!;
    const slotSets = [];
    for (const id of hostile) {
      const keys = Object.values(sessionKeys(store.prefix, id));
      const slots = await Promise.all(keys.map(async (key) => (await node.cli("cluster", "keyslot", key)).trim()));
      expect(new Set(slots).size).toBe(1);
      slotSets.push(slots[0]);
    }
    expect(new Set(slotSets).size).toBeGreaterThan(1);
    expect((await store.sessions()).sort()).toEqual([...hostile].sort());
  });

  it("spreads sessions over the masters and lists them all by scanning every master", async () => {
    const store = stores.create({ cluster: true });
    const ids = Array.from({ length: 40 }, (_, i) => `user-${i}`);
    await Promise.all(ids.map((id) => store.record(id, newCall("c1"), LIMITS)));
    const { masters } = await cluster!.roles();
    expect(masters).toHaveLength(3);
    const perMaster = await Promise.all(
      masters.map(async (m) => (await m.cli("--scan", "--pattern", metaKeyPattern(store.prefix))).trim().split("\n").filter(Boolean).length),
    );
    expect(perMaster.reduce((a, b) => a + b, 0)).toBe(40);
    expect(perMaster.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    expect((await store.sessions()).sort()).toEqual([...ids].sort());
  });
});
