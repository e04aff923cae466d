import type { ConnectionOptions } from "node:tls";
import { BreakerError } from "../errors.js";
import type { CircuitRecord, SessionSnapshot, ToolOutcome } from "../types.js";
import { MemoryStore } from "./memory-store.js";
import { BoundedCache } from "../bounded-cache.js";
import { decodeReports, decodeSession, encodeCall, encodeOutcome, idPrefix, mergeReports, type HeldSession } from "./redis-codec.js";
import { urlSecrets } from "../secrets.js";
import { connectRedis, describeClient, isCluster, redactUrl, withTimeout, type RedisClient } from "./redis-connection.js";
import { RedisGuard, type RedisFailMode } from "./redis-fail-mode.js";
import { assertRedisPrefix, DEFAULT_REDIS_PREFIX, metaKeyPattern, sessionKeys, type SessionKeys } from "./redis-keys.js";
import { REDIS_SCRIPTS } from "./redis-scripts.js";
import { copyCall, recordResultOf, reportCap, windowSizeOf } from "./store.js";
import type { BatchRecord, BreakerStore, CircuitClaim, Completion, NewCall, RecordResult, StoreEvent, StoreLimits, TransitionPosition } from "./store.js";

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
  /** Receives the store's events (one `outage` and one `recovered` per outage, a `fallback` per operation served from memory). */
  onEvent?: (event: StoreEvent) => void;
}

// Sessions whose recent calls and outcomes a store keeps (per generation), to receive only what is new.
const HELD_SESSIONS = 512;

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
  return [keys.meta, keys.window, keys.log];
}

// A claim as the scripts take it: epoch, run, asOf, through ("" and 0 for none).
function claimArgs(claim: CircuitClaim | undefined): (string | number)[] {
  return claim ? [claim.epoch, claim.run, claim.asOf, claim.through] : ["", "", 0, 0];
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
  // What this client last saw of each session: calls never change once
  // written and outcomes arrive as a log, so the scripts send only what is new.
  private readonly held = new BoundedCache<string, HeldSession>(HELD_SESSIONS);

  // A session's keys hash its id: worth remembering for the sessions in use.
  private readonly keys = new BoundedCache<string, [string, string, string]>(HELD_SESSIONS);

  private keysOf(sessionId: string): [string, string, string] {
    let keys = this.keys.get(sessionId);
    if (!keys) this.keys.set(sessionId, (keys = keyList(sessionKeys(this.prefix, sessionId))));
    return keys;
  }

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
      { failMode, commandTimeoutMs: this.commandTimeoutMs, connectTimeoutMs, retryAfterMs, guardTimeouts: !this.owned, ...where },
      this.owned,
      // Sessions served from memory during an outage are stale once Redis is back: the next outage starts clean.
      () => this.fallback.clear(),
    );
    if (options.onEvent) this.guard.subscribe(options.onEvent);
  }

  /** Listen to store events (fallback, outage, recovered); returns an unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    return this.guard.subscribe(listener);
  }

  async recordBatch(sessionId: string, calls: readonly NewCall[], limits: StoreLimits, claim?: CircuitClaim): Promise<BatchRecord> {
    const keys = this.keysOf(sessionId);
    const encoded: (string | number)[] = [];
    for (const call of calls) {
      const { idPrefix: prefix, body, run, usage } = encodeCall(call);
      encoded.push(prefix, body, run, ...usage);
    }
    const windowSize = windowSizeOf(limits);
    return this.guard.run<BatchRecord>(
      "record",
      sessionId,
      async () => {
        // What we hold lets the script send only what is new; a batch id we
        // hold may be a repeat, which the script answers from the whole list.
        const held = this.held.get(sessionId);
        const known = held && !calls.some((call) => held.calls.some((c) => c.id === call.id)) ? held : undefined;
        const reply = await this.scripts.breakerRecord(
          ...keys, JSON.stringify(sessionId), windowSize, ttlMs(limits),
          held?.epoch ?? "", known?.last ?? -1, held?.done ?? -1, ...claimArgs(claim), calls.length, ...encoded,
        );
        const decoded = decodeSession(reply, known ?? (held && { ...held, last: -2 }), calls);
        this.held.set(sessionId, decoded.held);
        const { now, epoch, steps, calls: history, reports, circuit, decided, usage, totalCalls, runStart } = decoded;
        return { now, epoch, steps, calls: history, reports, circuit, decided, usage, totalCalls, runStart };
      },
      async (error) => ({ ...(await this.fallback.recordBatch(sessionId, calls, limits, claim)), degraded: { reason: error.message } }),
    );
  }

  async record(sessionId: string, call: NewCall, limits: StoreLimits): Promise<RecordResult> {
    return recordResultOf(await this.recordBatch(sessionId, [call], limits), limits);
  }

  async completeBatch(sessionId: string, completions: readonly Completion[], limits: StoreLimits, claim?: CircuitClaim): Promise<boolean[]> {
    const keys = this.keysOf(sessionId);
    const windowSize = windowSizeOf(limits);
    return this.guard.run(
      "complete",
      sessionId,
      async () => {
        const held = this.held.get(sessionId);
        const args: (string | number)[] = [];
        for (const { callId, outcome } of completions) {
          // The step we saw the call at lets the script check one entry instead of searching the window.
          const step = held?.calls.findLast((c) => c.id === callId)?.step ?? 0;
          args.push(idPrefix(callId), step, encodeOutcome(outcome));
        }
        const reply = (await this.scripts.breakerComplete(
          ...keys, ttlMs(limits), windowSize, reportCap(windowSize), held?.epoch ?? "", held?.done ?? -1,
          ...claimArgs(claim), completions.length, ...args,
        )) as (string | number | null)[];
        const sent = decodeReports(reply, 1);
        const applied = reply.slice(sent.end).map((flag) => flag === 1);
        if (applied.length !== completions.length) throw new Error("the complete script replied without a result per outcome");
        // Keep what we hold in step with the log: our own outcomes are the ones we will need next.
        const current = this.held.get(sessionId);
        if (current && sent.from >= 0) {
          const merged = mergeReports(current, sent.from, sent.reports, Number(reply[0]));
          if (merged) this.held.set(sessionId, merged);
          else this.held.delete(sessionId);
        }
        return applied;
      },
      () => this.fallback.completeBatch(sessionId, completions, limits, claim),
    );
  }

  async complete(sessionId: string, callId: string, outcome: ToolOutcome, limits: StoreLimits): Promise<boolean> {
    const [applied] = await this.completeBatch(sessionId, [{ callId, outcome }], limits);
    return applied!;
  }

  async transition(sessionId: string, circuit: CircuitRecord, limits: StoreLimits, position?: TransitionPosition): Promise<void> {
    const keys = this.keysOf(sessionId);
    const through = position?.through ?? circuit.asOf;
    await this.guard.run(
      "transition",
      sessionId,
      async () => {
        await this.scripts.breakerTransition(...keys, circuit.run, circuit.asOf, JSON.stringify(circuit), ttlMs(limits), through, position?.epoch ?? "");
      },
      () => this.fallback.transition(sessionId, circuit, limits, position),
    );
  }

  async snapshot(sessionId: string): Promise<SessionSnapshot | null> {
    const keys = this.keysOf(sessionId);
    return this.guard.run(
      "snapshot",
      sessionId,
      async () => {
        const reply = await this.scripts.breakerSnapshot(...keys);
        if (reply === null) return null;
        const { circuit, calls, usage, totalCalls, runStart, windowSize } = decodeSession(reply);
        const window = calls.slice(-Math.max(1, windowSize)).map((c) => copyCall(c));
        return { sessionId, circuit, window, usage, totalCalls, runCalls: totalCalls - runStart + 1 };
      },
      () => this.fallback.snapshot(sessionId),
    );
  }

  async reset(sessionId: string): Promise<void> {
    this.held.delete(sessionId);
    await this.fallback.reset(sessionId);
    const keys = this.keysOf(sessionId);
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
        const nodes = isCluster(this.client) ? this.client.nodes("master") : [this.client];
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
