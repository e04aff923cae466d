import { MemoryStore, type BreakerStore } from "../breaker/index.js";

/** The store the graph uses: Redis when REDIS_URL is set (not wired yet), else in process. */
export function createStoreFromEnv(_env: NodeJS.ProcessEnv = process.env): BreakerStore {
  return new MemoryStore();
}
