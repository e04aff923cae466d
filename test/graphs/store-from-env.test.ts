import { afterEach, expect, it } from "vitest";
import { BreakerError } from "../../breaker/errors.js";
import { MemoryStore } from "../../breaker/stores/memory-store.js";
import { RedisStore } from "../../breaker/stores/redis-store.js";
import type { BreakerStore } from "../../breaker/stores/store.js";
import { createStoreFromEnv } from "../../graphs/store-from-env.js";

const opened: BreakerStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close?.()));
});

it("uses MemoryStore without REDIS_URL", () => {
  expect(createStoreFromEnv({})).toBeInstanceOf(MemoryStore);
  expect(createStoreFromEnv({ REDIS_URL: "  " })).toBeInstanceOf(MemoryStore);
});

it("uses RedisStore with REDIS_URL, taking prefix and fail mode from the environment", () => {
  // Port 1: nothing listens, and nothing here sends a command.
  const store = createStoreFromEnv({ REDIS_URL: "redis://127.0.0.1:1", BREAKER_REDIS_PREFIX: "app:", BREAKER_FAIL_MODE: "closed" });
  opened.push(store);
  expect(store).toBeInstanceOf(RedisStore);
  expect([(store as RedisStore).prefix, (store as RedisStore).failMode]).toEqual(["app:", "closed"]);
});

it("refuses a bad fail mode or URL with a BreakerError that names it", () => {
  expect(() => createStoreFromEnv({ REDIS_URL: "redis://127.0.0.1:1", BREAKER_FAIL_MODE: "maybe" })).toThrow(
    expect.objectContaining({ code: "INVALID_STORE_OPTIONS", message: expect.stringContaining('"maybe"') }),
  );
  expect(() => createStoreFromEnv({ REDIS_URL: "http://user:pw@host" })).toThrow(BreakerError);
  expect(() => createStoreFromEnv({ REDIS_URL: "http://user:pw@host" })).toThrow(/\*\*\*/);
});
