import net from "node:net";
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { describeRedis, startRedisCluster, startRedisServer } from "./redis-server.js";

const ping = async (url: string): Promise<string> => {
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, commandTimeout: 300, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on("error", () => {});
  try {
    await client.connect();
    return await client.ping();
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  } finally {
    client.disconnect();
  }
};

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

describeRedis("test harness: redis-server processes", "binary", () => {
  it("starts, pauses, resumes, kills, restarts and stops a server without persistence", async () => {
    const server = await startRedisServer();
    try {
      expect(server.port).not.toBe(6379);
      expect(await ping(server.url)).toBe("PONG");
      expect((await server.cli("config", "get", "save")).split("\n").slice(0, 2)).toEqual(["save", ""]);
      expect((await server.cli("config", "get", "appendonly")).split("\n").slice(0, 2)).toEqual(["appendonly", "no"]);
      await server.cli("set", "k", "v");
      server.pause();
      expect(await ping(server.url)).toMatch(/^failed/);
      server.resume();
      expect(await ping(server.url)).toBe("PONG");
      await server.kill();
      expect(await listening(server.port)).toBe(false);
      await server.restart();
      expect(await ping(server.url)).toBe("PONG");
      expect((await server.cli("exists", "k")).trim()).toBe("0");
    } finally {
      await server.stop();
    }
    expect(await listening(server.port)).toBe(false);
  });

  it("builds a cluster of 3 masters with a replica each", async () => {
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    try {
      const { masters, replicas } = await cluster.roles();
      expect([masters.length, replicas.length]).toEqual([3, 3]);
      expect((await cluster.nodes[0]!.cli("cluster", "info"))).toContain("cluster_slots_ok:16384");
    } finally {
      await cluster.stop();
    }
    expect(await Promise.all(cluster.nodes.map((n) => listening(n.port)))).toEqual(cluster.nodes.map(() => false));
  });
});
