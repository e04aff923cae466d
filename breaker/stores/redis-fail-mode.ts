import { BreakerError } from "../errors.js";
import { whenReady, withTimeout, type RedisClient } from "./redis-connection.js";
import type { StoreEvent } from "./store.js";

/**
 * What RedisStore does when Redis fails or is too slow: `open` answers from an
 * in-process MemoryStore and emits a `fallback` event; `closed` throws
 * STORE_UNAVAILABLE, which the breaker turns into an OPEN verdict.
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
}

/**
 * Runs each store operation against Redis within the timeouts and, when Redis
 * fails, applies the fail mode: the memory fallback and an event, or a
 * STORE_UNAVAILABLE error. After a failure, operations skip Redis for
 * `retryAfterMs` (so a check does not wait out one timeout on record and
 * another on the transition right after it), then try it again: the store
 * uses Redis again soon after the client has reconnected.
 */
export class RedisGuard {
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  // The client's last connection error: the real reason behind a failed wait (WRONGPASS, ECONNREFUSED...).
  private lastError = "";
  private connecting: Promise<void> | undefined;
  private skipUntil = 0;
  private lastFailure: unknown;

  constructor(
    private readonly client: RedisClient,
    private readonly options: RedisGuardOptions,
    /** Record connection errors (only for a client the store owns: a listener changes how ioredis logs). */
    watchErrors: boolean,
  ) {
    if (watchErrors) {
      client.on("error", (error: Error) => {
        this.lastError = error.message;
      });
    }
  }

  /** Listen to fallback events; returns an unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drop every listener (the store is closing). */
  clear(): void {
    this.listeners.clear();
  }

  /**
   * Run `viaRedis` (bounded by the command timeout unless `bounded` is false);
   * on any failure, `viaMemory` in open mode, a STORE_UNAVAILABLE error in closed mode.
   */
  async run<T>(
    operation: string,
    sessionId: string | undefined,
    viaRedis: () => Promise<T>,
    viaMemory: () => Promise<T>,
    bounded = true,
  ): Promise<T> {
    try {
      if (Date.now() < this.skipUntil) throw this.lastFailure;
      await this.ready();
      return bounded ? await withTimeout(viaRedis(), this.options.commandTimeoutMs) : await viaRedis();
    } catch (cause) {
      if (Date.now() >= this.skipUntil) {
        this.lastFailure = cause;
        this.skipUntil = Date.now() + this.options.retryAfterMs;
      }
      const error = this.unavailable(operation, cause);
      if (this.options.failMode === "closed") throw error;
      this.emit({ type: "fallback", operation, ...(sessionId === undefined ? {} : { sessionId }), error });
      return viaMemory();
    }
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
    for (const secret of this.options.secrets) reason = reason.split(secret).join("***");
    return new BreakerError("STORE_UNAVAILABLE", `Redis at ${this.options.target} failed on ${operation}: ${reason}`);
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
