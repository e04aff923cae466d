import { MemoryStore, redisStoreFromEnv, type BreakerStore } from "../breaker/index.js";

/** The breaker's store for this process: RedisStore when REDIS_URL is set (shared by every worker), else MemoryStore. */
export function createStoreFromEnv(env: Record<string, string | undefined> = process.env): BreakerStore {
  return redisStoreFromEnv(env) ?? new MemoryStore();
}

let processStore: BreakerStore | undefined;

/**
 * The store of this server process, built once from its environment: the
 * graph the server loads and the ops routes (server/) both take it, so with
 * an in-process MemoryStore they see the same sessions.
 */
export function serverStore(): BreakerStore {
  return (processStore ??= createStoreFromEnv(process.env));
}
