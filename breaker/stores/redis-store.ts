import type { ConnectionOptions } from "node:tls";
import { Cluster } from "ioredis";
import { BreakerError } from "../errors.js";
import type { CircuitRecord, SessionSnapshot, ToolOutcome } from "../types.js";
import { MemoryStore } from "./memory-store.js";
import { BoundedCache } from "../bounded-cache.js";
import { decodeSession, encodeCall, idPrefix, type CachedWindow } from "./redis-codec.js";
import { connectRedis, describeClient, redactUrl, urlSecrets, withTimeout, type RedisClient } from "./redis-connection.js";
import { RedisGuard, type RedisFailMode } from "./redis-fail-mode.js";
import { assertRedisPrefix, DEFAULT_REDIS_PREFIX, metaKeyPattern, sessionKeys, type SessionKeys } from "./redis-keys.js";
import { REDIS_SCRIPTS } from "./redis-scripts.js";
import type { BreakerStore, NewCall, RecordResult, StoreEvent, StoreLimits } from "./store.js";

export type { RedisFailMode } from "./redis-fail-mode.js";

/** How to build a RedisStore: from your ioredis client (standalone or Cluster) or from a URL. */
export interface RedisStoreOptions {
  /** A client you own (and close). Give its own timeouts; the store adds `commandTimeoutMs` as a last guard. */
  client?: RedisClient;
  /** redis:// or rediss:// URL, with ACL user and password if needed; the store owns that client. */
  url?: string;
  /** With `url`: connect to a Redis Cluster through that seed node. */
  cluster?: boolean;
  /** With a rediss:// `url`: TLS settings (a private CA, for instance). */
  tls?: ConnectionOptions;
  /** Prefix of every key; no braces. Default "cb:". */
  prefix?: string;
  /** Default "open". */
  failMode?: RedisFailMode;
  /** Longest wait for one reply. Default 500 ms. */
  commandTimeoutMs?: number;
  /** Longest wait for a connection in progress. Default 1,000 ms. */
  connectTimeoutMs?: number;
  /** After Redis fails, how long to answer by the fail mode without trying it. Default 1,000 ms. */
  retryAfterMs?: number;
  /** Receives the store's events (fallbacks), as does every breaker built on the store. */
  onEvent?: (event: StoreEvent) => void;
}

// Sessions whose last window a store keeps (per generation), to receive only new entries.
const WINDOW_CACHE_SESSIONS = 512;

type ScriptCall = (...keysAndArgs: (string | number)[]) => Promise<unknown>;
// The commands defineCommand adds, under the names REDIS_SCRIPTS gives them.
interface ScriptCommands {
  breakerRecord: ScriptCall;
  breakerComplete: ScriptCall;
  breakerTransition: ScriptCall;
  breakerSnapshot: ScriptCall;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new BreakerError("INVALID_STORE_OPTIONS", `RedisStore option ${name} must be a positive number of milliseconds.`);
  }
  return value;
}

function ttlMs(limits: StoreLimits): number {
  return Math.max(1, Math.round(limits.ttlSeconds * 1_000));
}

function keyList(keys: SessionKeys): [string, string, string] {
  return [keys.meta, keys.window, keys.outcomes];
}

/**
 * The breaker's memory shared by every worker: one Lua script per operation,
 * so a check is one atomic round trip and concurrent checks of a session get
 * one linear history. The clock is Redis TIME; keys are per-session,
 * hash-tagged for Cluster, capped and expiring. See docs/REDIS.md.
 */
export class RedisStore implements BreakerStore {
  readonly prefix: string;
  readonly failMode: RedisFailMode;
  private readonly client: RedisClient;
  private readonly scripts: ScriptCommands;
  private readonly owned: boolean;
  private readonly guard: RedisGuard;
  private readonly commandTimeoutMs: number;
  private readonly fallback = new MemoryStore();
  // The last window seen per session: entries never change once written, so
  // the next record of the session only needs what came after it.
  private readonly windows = new BoundedCache<string, CachedWindow>(WINDOW_CACHE_SESSIONS);

  /** A store with its own client for `url`. */
  static fromUrl(url: string, options: Omit<RedisStoreOptions, "url" | "client"> = {}): RedisStore {
    return new RedisStore({ ...options, url });
  }

  constructor(options: RedisStoreOptions) {
    if (!options.client === !options.url) {
      throw new BreakerError("INVALID_STORE_OPTIONS", "RedisStore needs exactly one of `client` or `url`.");
    }
    this.prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
    assertRedisPrefix(this.prefix);
    this.failMode = options.failMode ?? "open";
    if (this.failMode !== "open" && this.failMode !== "closed") {
      throw new BreakerError("INVALID_STORE_OPTIONS", `RedisStore failMode must be "open" or "closed", not ${JSON.stringify(this.failMode)}.`);
    }
    this.commandTimeoutMs = positive("commandTimeoutMs", options.commandTimeoutMs, 500);
    const connectTimeoutMs = positive("connectTimeoutMs", options.connectTimeoutMs, 1_000);
    let where: { target: string; secrets: string[] };
    if (options.url) {
      if (!/^rediss?:\/\//.test(options.url)) {
        throw new BreakerError("INVALID_STORE_OPTIONS", `RedisStore url must start with redis:// or rediss:// (got ${redactUrl(options.url)}).`);
      }
      const { cluster, tls } = options;
      this.client = connectRedis(options.url, { cluster, tls, connectTimeoutMs, commandTimeoutMs: this.commandTimeoutMs });
      this.owned = true;
      where = { target: redactUrl(options.url), secrets: urlSecrets(options.url) };
    } else {
      this.client = options.client!;
      this.owned = false;
      where = describeClient(this.client);
    }
    if ((this.client.options as { keyPrefix?: string }).keyPrefix) {
      throw new BreakerError("INVALID_STORE_OPTIONS", "Give RedisStore a client without ioredis `keyPrefix`; use the store's `prefix` option.");
    }
    for (const script of Object.values(REDIS_SCRIPTS)) {
      this.client.defineCommand(script.name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
    }
    this.scripts = this.client as unknown as ScriptCommands;
    const failMode = this.failMode;
    const retryAfterMs = positive("retryAfterMs", options.retryAfterMs, 1_000);
    this.guard = new RedisGuard(
      this.client,
      { failMode, commandTimeoutMs: this.commandTimeoutMs, connectTimeoutMs, retryAfterMs, ...where },
      this.owned,
    );
    if (options.onEvent) this.guard.subscribe(options.onEvent);
  }

  /** Listen to fallback events; returns an unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    return this.guard.subscribe(listener);
  }

  async record(sessionId: string, call: NewCall, limits: StoreLimits): Promise<RecordResult> {
    const keys = keyList(sessionKeys(this.prefix, sessionId));
    const { idPrefix: prefix, body, usage } = encodeCall(call);
    const maxEntries = Math.max(1, Math.floor(limits.maxEntries));
    return this.guard.run(
      "record",
      sessionId,
      async () => {
        // A held window lets the script send only what is new; a call id we
        // hold is a repeat, answered from the whole window.
        const held = this.windows.get(sessionId);
        const known = held && !held.entries.some((c) => c.id === call.id) ? held : undefined;
        const reply = await this.scripts.breakerRecord(
          ...keys, JSON.stringify(sessionId), prefix, body, call.run, maxEntries, ttlMs(limits), ...usage,
          known?.epoch ?? "", known?.last ?? 0,
        );
        const decoded = decodeSession(reply, known);
        if (decoded.cacheable) this.windows.set(sessionId, decoded.cacheable);
        const { window, now, duplicate, circuit, usage: totals, totalCalls, runCalls } = decoded;
        const record = window.at(-1);
        if (!record) throw new Error("the record script replied with an empty window");
        return { now, record, window, duplicate, circuit, usage: totals, totalCalls, runCalls };
      },
      () => this.fallback.record(sessionId, call, limits),
    );
  }

  async complete(sessionId: string, callId: string, outcome: ToolOutcome, limits: StoreLimits): Promise<boolean> {
    const keys = keyList(sessionKeys(this.prefix, sessionId));
    const json = JSON.stringify({ kind: outcome.kind, fingerprint: outcome.fingerprint });
    return this.guard.run(
      "complete",
      sessionId,
      async () => (await this.scripts.breakerComplete(...keys, idPrefix(callId), json, ttlMs(limits))) === 1,
      () => this.fallback.complete(sessionId, callId, outcome, limits),
    );
  }

  async transition(sessionId: string, circuit: CircuitRecord, limits: StoreLimits): Promise<void> {
    const keys = keyList(sessionKeys(this.prefix, sessionId));
    await this.guard.run(
      "transition",
      sessionId,
      async () => {
        await this.scripts.breakerTransition(...keys, circuit.run, circuit.asOf, JSON.stringify(circuit), ttlMs(limits));
      },
      () => this.fallback.transition(sessionId, circuit, limits),
    );
  }

  async snapshot(sessionId: string): Promise<SessionSnapshot | null> {
    const keys = keyList(sessionKeys(this.prefix, sessionId));
    return this.guard.run(
      "snapshot",
      sessionId,
      async () => {
        const reply = await this.scripts.breakerSnapshot(...keys);
        if (reply === null) return null;
        const { circuit, window, usage, totalCalls, runCalls } = decodeSession(reply);
        return { sessionId, circuit, window, usage, totalCalls, runCalls };
      },
      () => this.fallback.snapshot(sessionId),
    );
  }

  async reset(sessionId: string): Promise<void> {
    this.windows.delete(sessionId);
    await this.fallback.reset(sessionId);
    const keys = keyList(sessionKeys(this.prefix, sessionId));
    await this.guard.run(
      "reset",
      sessionId,
      async () => {
        await this.client.del(...keys);
      },
      async () => {},
    );
  }

  /** Session ids under this prefix, by SCAN (over every master of a Cluster); not bounded by the command timeout. */
  async sessions(): Promise<string[]> {
    return this.guard.run(
      "sessions",
      undefined,
      async () => {
        const nodes = this.client instanceof Cluster ? this.client.nodes("master") : [this.client];
        const keys = new Set<string>();
        for (const node of nodes) {
          for await (const batch of node.scanStream({ match: metaKeyPattern(this.prefix), count: 1_000 })) {
            for (const key of batch as string[]) keys.add(key);
          }
        }
        const ids = await Promise.all([...keys].map((key) => this.client.hget(key, "sid")));
        return ids.filter((id): id is string => typeof id === "string").map((id) => JSON.parse(id) as string);
      },
      () => this.fallback.sessions(),
      false,
    );
  }

  /** Close the client the store opened from a URL; a client you passed in stays yours. */
  async close(): Promise<void> {
    this.guard.clear();
    if (!this.owned) return;
    try {
      if (this.client.status === "ready") await withTimeout(this.client.quit(), this.commandTimeoutMs);
    } catch {
      // Closing anyway below.
    } finally {
      this.client.disconnect();
    }
  }
}
