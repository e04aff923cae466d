import { BreakerError } from "../errors.js";
import { maskSecrets } from "../secrets.js";
import { whenReady, withTimeout, type RedisClient } from "./redis-connection.js";
import type { StoreEvent } from "./store.js";

/**
 * What RedisStore does when Redis fails or is too slow: `open` answers from an
 * in-process MemoryStore and emits a `fallback` event; `closed` throws
 * STORE_UNAVAILABLE, which the breaker turns into an OPEN verdict. Either way
 * the store emits `outage` at the first failure and `recovered` at the first
 * success after it.
 */
export type RedisFailMode = "open" | "closed";

/** How the guard reaches Redis and what it may say about it. */
export interface RedisGuardOptions {
  failMode: RedisFailMode;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  /** After a failure, how long operations skip Redis before trying it again. */
  retryAfterMs: number;
  /** Where Redis is, for messages (already redacted). */
  target: string;
  /** Strings to scrub from any message (passwords). */
  secrets: string[];
  /** Bound each command by `commandTimeoutMs` here (for a client built without a command timeout of its own). */
  guardTimeouts: boolean;
}

/**
 * Runs each store operation against Redis within the timeouts and, when Redis
 * fails, applies the fail mode: the memory fallback and an event, or a
 * STORE_UNAVAILABLE error. It tracks outages: one `outage` event when the
 * first operation fails, one `recovered` event when one started after it
 * succeeds. After a failure, operations skip Redis for `retryAfterMs` (so a
 * check does not wait out one timeout on record and another on the
 * transition right after it), then try it again: the store uses Redis again
 * soon after the client has reconnected.
 */
export class RedisGuard {
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  // The client's last connection error: the real reason behind a failed wait (WRONGPASS, ECONNREFUSED...).
  private lastError = "";
  private connecting: Promise<void> | undefined;
  private skipUntil = 0;
  private lastFailure: unknown;
  // The outage in progress: when it started (performance.now()) and how many operations the fail mode answered.
  private outage: { since: number; failed: number } | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly options: RedisGuardOptions,
    /** Record connection errors (only for a client the store owns: a listener changes how ioredis logs). */
    watchErrors: boolean,
    /** Called once when an outage ends, before the `recovered` event (the store drops its fallback sessions). */
    private readonly onRecovered: () => void = () => {},
  ) {
    if (watchErrors) {
      client.on("error", (error: Error) => {
        this.lastError = error.message;
      });
    }
  }

  /** Listen to store events; returns an unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drop every listener (the store is closing). */
  clear(): void {
    this.listeners.clear();
  }

  /** True while an outage is in progress (from its first failure to the next success). */
  get down(): boolean {
    return this.outage !== undefined;
  }

  /**
   * Run `viaRedis` (bounded by the command timeout unless `bounded` is false);
   * on any failure, `viaMemory` in open mode, a STORE_UNAVAILABLE error in closed mode.
   */
  async run<T>(
    operation: string,
    sessionId: string | undefined,
    viaRedis: () => Promise<T>,
    viaMemory: (error: BreakerError) => Promise<T>,
    bounded = true,
  ): Promise<T> {
    // Only an operation started after an outage began can say it is over.
    const outage = this.outage;
    let result: T;
    try {
      if (this.skipUntil !== 0 && Date.now() < this.skipUntil) throw this.lastFailure;
      if (this.client.status !== "ready") await this.ready();
      // A client the store built has ioredis' own commandTimeout; one it was given gets this guard.
      result = bounded && this.options.guardTimeouts ? await withTimeout(viaRedis(), this.options.commandTimeoutMs) : await viaRedis();
    } catch (cause) {
      if (Date.now() >= this.skipUntil) {
        this.lastFailure = cause;
        this.skipUntil = Date.now() + this.options.retryAfterMs;
      }
      const error = this.unavailable(operation, cause);
      const scope = sessionId === undefined ? {} : { sessionId };
      if (this.outage) this.outage.failed += 1;
      else {
        this.outage = { since: performance.now(), failed: 1 };
        this.emit({ type: "outage", operation, ...scope, error, failMode: this.options.failMode });
      }
      if (this.options.failMode === "closed") throw error;
      this.emit({ type: "fallback", operation, ...scope, error });
      return viaMemory(error);
    }
    if (outage && this.outage === outage) {
      this.outage = undefined;
      this.onRecovered();
      this.emit({ type: "recovered", operation, downMs: Math.round(performance.now() - outage.since), failedOperations: outage.failed });
    }
    return result;
  }
  // Calls arriving while the client connects share one wait.
  private ready(): Promise<void> {
    if (this.client.status === "ready") return Promise.resolve();
    this.connecting ??= whenReady(this.client, this.options.connectTimeoutMs).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private unavailable(operation: string, cause: unknown): BreakerError {
    let reason = cause instanceof Error ? cause.message : String(cause);
    if (this.lastError && this.client.status !== "ready") reason += ` (last connection error: ${this.lastError})`;
    return new BreakerError("STORE_UNAVAILABLE", `Redis at ${this.options.target} failed on ${operation}: ${maskSecrets(reason, this.options.secrets)}`);
  }

  private emit(event: StoreEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken log sink must not change what the store answers.
      }
    }
  }
}
