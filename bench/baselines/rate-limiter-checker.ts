import type { Redis } from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import type { Checker } from "../lib/check-workload.js";

/** More points than any benchmark consumes: the limiter always admits, so every consume is its normal path. */
const UNLIMITED_POINTS = 1_000_000_000;

/**
 * rate-limiter-flexible's RateLimiterRedis as a Checker: one `consume` per
 * check (one EVALSHA of its INCRBY + PTTL script), nothing on completion.
 * The Redis-backed limiter a user would otherwise reach for; it counts, it
 * does not judge what a call repeats.
 */
export function rateLimiterChecker(client: Redis, keyPrefix = "rlf"): Checker {
  const limiter = new RateLimiterRedis({ storeClient: client, keyPrefix, points: UNLIMITED_POINTS, duration: 3_600 });
  return {
    async check(sessionId) {
      const res = await limiter.consume(sessionId);
      return { step: res.consumedPoints, state: "CLOSED" };
    },
    async complete() {},
  };
}
