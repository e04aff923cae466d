import { hashText } from "../canonical.js";
import { BreakerError } from "../errors.js";

/** Default prefix of every key RedisStore writes. */
export const DEFAULT_REDIS_PREFIX = "cb:";

/** The Redis keys of one session. They share one hash tag, so they live in one Cluster slot. */
export interface SessionKeys {
  /** Hash: raw session id, circuit, run, counters, usage totals. */
  meta: string;
  /** List: the recent calls as JSON, oldest first. */
  window: string;
  /**
   * List: outcomes in the order they were reported, "step,seq,<outcome JSON>".
   * (Named apart from the `outcomes` hash of earlier versions, so an upgrade
   * never meets a key of the wrong type.)
   */
  log: string;
}

/** Refuse a prefix that would change which part of the key Redis Cluster hashes. */
export function assertRedisPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== "string" || /[{}]/.test(prefix)) {
    throw new BreakerError(
      "INVALID_STORE_OPTIONS",
      `Redis key prefix must be a string without "{" or "}" (got ${JSON.stringify(prefix)}); braces would move the Cluster hash tag.`,
    );
  }
}

/**
 * Keys of a session: `${prefix}{${tag}}:meta|window|log`, where the tag
 * is a hash of the id (JSON-encoded first, so lone surrogates stay distinct).
 * No id, however hostile, can pick another session's keys or break the format.
 */
export function sessionKeys(prefix: string, sessionId: string): SessionKeys {
  const base = `${prefix}{${hashText(JSON.stringify(sessionId))}}:`;
  return { meta: `${base}meta`, window: `${base}window`, log: `${base}log` };
}

/** SCAN pattern matching the meta key of every session under a prefix. */
export function metaKeyPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, "\\$&")}{*}:meta`;
}
