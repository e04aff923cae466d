import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBreaker, MemoryStore, RedisStore } from "../../breaker/index.js";
import { hashText } from "../../breaker/canonical.js";
import { describeRedis, startRedisCluster, startRedisServer, uniquePrefix, type RedisCluster, type RedisServer } from "../support/redis-server.js";
import { adversarialIds, buildVictim, exercise, isolationTests } from "./support/isolation-suite.js";
import { reportFigures } from "./support/figures.js";

type Client = Redis | Cluster;

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every key under `prefix` with its raw contents, over every master of a Cluster. */
async function dumpKeys(client: Client, prefix: string): Promise<Map<string, unknown>> {
  const nodes = client instanceof Cluster ? client.nodes("master") : [client];
  const out = new Map<string, unknown>();
  for (const node of nodes) {
    for await (const batch of node.scanStream({ match: `${prefix}*`, count: 1_000 })) {
      for (const key of batch as string[]) {
        const type = await node.type(key);
        out.set(key, type === "hash" ? await node.hgetall(key) : type === "list" ? await node.lrange(key, 0, -1) : type);
      }
    }
  }
  return out;
}

/** Group keys by hash tag; check their shape and that each tag belongs to the one session hashed into it. */
async function keysBySession(client: Client, prefix: string): Promise<Map<string, string[]>> {
  const shape = new RegExp(`^${escape(prefix)}\\{([A-Za-z0-9_-]{22})\\}:(meta|window|log)$`);
  const byTag = new Map<string, string[]>();
  for (const key of (await dumpKeys(client, prefix)).keys()) {
    const match = shape.exec(key);
    expect(match, `unexpected key ${JSON.stringify(key.slice(0, 80))}`).not.toBeNull();
    const tag = match![1]!;
    byTag.set(tag, [...(byTag.get(tag) ?? []), key]);
  }
  const bySession = new Map<string, string[]>();
  for (const [tag, keys] of byTag) {
    const sid = await client.hget(`${prefix}{${tag}}:meta`, "sid");
    expect(sid, `tag ${tag} has no owner`).toEqual(expect.any(String));
    const id = JSON.parse(sid!) as string;
    expect(hashText(JSON.stringify(id))).toBe(tag);
    expect(bySession.has(id)).toBe(false);
    bySession.set(id, keys.sort());
    if (client instanceof Cluster) {
      const slots = await Promise.all(keys.map((k) => client.cluster("KEYSLOT", k)));
      expect(new Set(slots).size).toBe(1);
    }
  }
  return bySession;
}

/** Key-level isolation on a Redis deployment: one hash tag per session, and a reset deletes exactly that session's keys. */
function redisKeyTests(label: string, connect: () => { store: RedisStore; client: Client; prefix: string }): void {
  it(`${label}: each session's keys share one hash tag, and resetting or inspecting one never changes another's keys`, async () => {
    const { store, client, prefix } = connect();
    const breaker = createBreaker({ store });
    const victim = "victim";
    await buildVictim(breaker, victim);
    const ids = adversarialIds(victim, prefix);
    for (const id of ids) await exercise(breaker, id, false);

    const sessions = await keysBySession(client, prefix);
    expect(new Set(sessions.keys())).toEqual(new Set([victim, ...ids]));
    for (const keys of sessions.values()) expect(keys.map((k) => k.split(":").at(-1))).toEqual(["log", "meta", "window"]);
    reportFigures(
      { section: "isolation", scenario: `keys-${label.toLowerCase().replace(/\W+/g, "-")}`, figures: { tags: sessions.size, keysPerSession: [...sessions.values()][0]?.length ?? 0 } },
      `isolation keys on ${label}: ${sessions.size} hash tags, one per session`,
    );

    const before = await dumpKeys(client, prefix);
    for (const id of [...ids].reverse()) {
      await breaker.inspect(victim);
      await breaker.inspect(id);
      const gone = new Set(sessions.get(id));
      await breaker.reset(id);
      const after = await dumpKeys(client, prefix);
      for (const key of gone) expect(after.has(key)).toBe(false);
      for (const [key, value] of after) expect(value, key).toEqual(before.get(key));
      for (const key of gone) before.delete(key);
    }
    expect([...(await keysBySession(client, prefix)).keys()]).toEqual([victim]);
    await breaker.reset(victim);
    expect((await dumpKeys(client, prefix)).size).toBe(0);
  });
}

describe("session isolation on MemoryStore", () => {
  isolationTests("MemoryStore", () => ({ store: new MemoryStore(), prefix: "cb:" }), 200);
});

describeRedis("session isolation on standalone Redis", "binary", () => {
  let server: RedisServer;
  let client: Redis;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url, { lazyConnect: false });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    client?.disconnect();
    await server?.stop();
  });
  const connect = () => {
    const prefix = uniquePrefix("isolation");
    const store = RedisStore.fromUrl(server.url, { prefix, failMode: "closed", commandTimeoutMs: 5_000 });
    stores.push(store);
    return { store, client, prefix };
  };
  isolationTests("standalone Redis", connect, 60);
  redisKeyTests("standalone Redis", connect);
});

describeRedis("session isolation on Redis Cluster", "binary", () => {
  let cluster: RedisCluster;
  let client: Cluster;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    client = new Cluster([{ host: cluster.nodes[0]!.host, port: cluster.nodes[0]!.port }]);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    client?.disconnect();
    await cluster?.stop();
  });
  const connect = () => {
    const prefix = uniquePrefix("isolation");
    const store = RedisStore.fromUrl(cluster.url, { cluster: true, prefix, failMode: "closed", commandTimeoutMs: 5_000 });
    stores.push(store);
    return { store, client, prefix };
  };
  isolationTests("Redis Cluster", connect, 30);
  redisKeyTests("Redis Cluster", connect);
});
