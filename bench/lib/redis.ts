import { Redis } from "ioredis";
import { startRedisServer, type RedisServer } from "../../test/support/redis-server.js";

/** The benchmark's own redis-server (never the one on 6379) and a way to open clients to it. */
export interface BenchRedis {
  server: RedisServer;
  url: string;
  version: string;
  /** A plain ioredis client; closed by `stop`. */
  client(): Redis;
  stop(): Promise<void>;
}

let shared: Promise<BenchRedis> | undefined;

async function start(): Promise<BenchRedis> {
  const server = await startRedisServer();
  const clients: Redis[] = [];
  const client = (): Redis => {
    const c = new Redis(server.url, { maxRetriesPerRequest: 0 });
    clients.push(c);
    return c;
  };
  const info = await client().info("server");
  return {
    server,
    url: server.url,
    version: /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown",
    client,
    async stop() {
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
      await server.stop();
    },
  };
}

/** Start the redis-server once per bench run; sections share it and flush what they wrote. */
export function benchRedis(): Promise<BenchRedis> {
  shared ??= start();
  return shared;
}

/** The Redis version, when a section started the server (never starts one). */
export async function startedRedisVersion(): Promise<string | undefined> {
  return shared?.then((r) => r.version, () => undefined);
}

/** Stop the shared server if a section started it. */
export async function stopBenchRedis(): Promise<void> {
  if (!shared) return;
  const redis = await shared.catch(() => undefined);
  shared = undefined;
  await redis?.stop();
}
