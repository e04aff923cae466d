import { RedisStore, type RedisFailMode, type RedisStoreOptions } from "./redis-store.js";

/** Environment variables RedisStore reads; all optional but REDIS_URL turns it on. */
export type RedisEnv = Partial<
  Record<"REDIS_URL" | "REDIS_CLUSTER" | "BREAKER_REDIS_PREFIX" | "BREAKER_FAIL_MODE", string>
>;

/**
 * A RedisStore configured from the environment, or null without REDIS_URL:
 * REDIS_URL (redis:// or rediss://), REDIS_CLUSTER=true for a Cluster seed
 * node, BREAKER_REDIS_PREFIX, BREAKER_FAIL_MODE=open|closed.
 */
export function redisStoreFromEnv(
  env: RedisEnv = process.env,
  overrides: Omit<RedisStoreOptions, "url" | "client"> = {},
): RedisStore | null {
  const url = env.REDIS_URL?.trim();
  if (!url) return null;
  return RedisStore.fromUrl(url, {
    cluster: /^(1|true|yes)$/i.test(env.REDIS_CLUSTER ?? ""),
    prefix: env.BREAKER_REDIS_PREFIX || undefined,
    // An invalid value reaches the constructor, which names it in a BreakerError.
    failMode: (env.BREAKER_FAIL_MODE || undefined) as RedisFailMode | undefined,
    ...overrides,
  });
}
