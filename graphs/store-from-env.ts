import { MemoryStore, redisStoreFromEnv, type BreakerStore } from "../breaker/index.js";

/** The breaker's store for this process: RedisStore when REDIS_URL is set (shared by every worker), else MemoryStore. */
export function createStoreFromEnv(env: Record<string, string | undefined> = process.env): BreakerStore {
  return redisStoreFromEnv(env) ?? new MemoryStore();
}
