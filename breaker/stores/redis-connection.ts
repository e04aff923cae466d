import type { ConnectionOptions } from "node:tls";
import { createRequire } from "node:module";
import type { Cluster, Redis, RedisOptions } from "ioredis";
import { MASK, SECRET_PARAM } from "../secrets.js";

/** A standalone client or a Cluster client: RedisStore works with either. */
export type RedisClient = Redis | Cluster;

let ioredisModule: typeof import("ioredis") | undefined;

/** ioredis, loaded when a Redis store first connects: a process on the in-process store never loads it. */
export function ioredis(): typeof import("ioredis") {
  return (ioredisModule ??= createRequire(import.meta.url)("ioredis") as typeof import("ioredis"));
}

/** True for a Redis Cluster client (ioredis marks both kinds with `isCluster`). */
export function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster === true;
}

/** How RedisStore builds its own client from a URL. */
export interface RedisConnectOptions {
  /** Treat the URL as one seed node of a Redis Cluster. */
  cluster?: boolean;
  /** TLS settings for rediss:// (a private CA, for instance). */
  tls?: ConnectionOptions;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
}

/** The URL with its password (and any secret-looking query value) replaced by MASK, safe to log. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = MASK;
    for (const name of [...parsed.searchParams.keys()]) {
      if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, MASK);
    }
    return parsed.toString();
  } catch {
    return "<unparsable Redis URL>";
  }
}

/** Where a client you were given points, for messages: never with its password, which is returned to scrub. */
export function describeClient(client: RedisClient): { target: string; secrets: string[] } {
  if (isCluster(client)) {
    const password = client.options.redisOptions?.password;
    return { target: "Redis Cluster", secrets: password ? [password] : [] };
  }
  const { host, port, tls, password } = client.options;
  return { target: `${tls ? "rediss" : "redis"}://${host}:${port}`, secrets: password ? [password] : [] };
}

// Reconnect soon after Redis is back, without hammering it while it is down.
const backoff = (times: number): number => Math.min(times * 100, 1_000);

function nodeOptions(options: RedisConnectOptions): RedisOptions {
  return {
    // Connect on first use: a store that is built but never used (a module-level graph in a
    // script) opens no socket, so it cannot keep the process alive.
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs,
    commandTimeout: options.commandTimeoutMs,
    // Fail a request as soon as its connection drops, and never replay it
    // later: by then the breaker has already answered from its fallback.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  };
}

/**
 * A client that fails fast: short timeouts and no offline queue, so a dead or
 * stalled Redis costs a check at most the timeouts, never a hang. It connects
 * on the first command (see `whenReady`).
 */
export function connectRedis(url: string, options: RedisConnectOptions): RedisClient {
  const secure = url.startsWith("rediss://");
  const tls = secure ? { tls: options.tls ?? {} } : {};
  let client: RedisClient;
  if (options.cluster) {
    const parsed = new URL(url);
    client = new (ioredis().Cluster)([{ host: parsed.hostname.replace(/^\[|\]$/g, ""), port: Number(parsed.port || 6379) }], {
      enableOfflineQueue: false,
      lazyConnect: true,
      clusterRetryStrategy: backoff,
      slotsRefreshTimeout: options.connectTimeoutMs,
      redisOptions: {
        ...nodeOptions(options),
        ...tls,
        username: decodeURIComponent(parsed.username) || undefined,
        password: decodeURIComponent(parsed.password) || undefined,
      },
    });
  } else {
    client = new (ioredis().Redis)(url, { ...nodeOptions(options), ...tls, enableOfflineQueue: false, retryStrategy: backoff });
  }
  // Failures reach users through the store's fallback events and errors; an
  // 'error' listener keeps ioredis from printing every reconnect attempt.
  client.on("error", () => {});
  return client;
}

/**
 * Resolve once the client is ready: immediately when it is, within
 * `timeoutMs` while it is still connecting, and never by waiting on a client
 * that is down (that fails at once, the store then applies its fail mode).
 */
export async function whenReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === "ready") return;
  if (client.status === "wait") client.connect().catch(() => {});
  if (client.status !== "connecting" && client.status !== "connect") {
    throw new Error(`Redis is not connected (${client.status})`);
  }
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error): void => {
      clearTimeout(timer);
      client.off("ready", onReady);
      client.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = (): void => done();
    const onClose = (): void => done(new Error("Redis connection closed while connecting"));
    const timer = setTimeout(() => done(new Error(`Redis was not ready within ${timeoutMs} ms`)), timeoutMs);
    client.once("ready", onReady);
    client.once("close", onClose);
  });
}

/** Settle `promise` or fail after `ms`: the last guard for clients built without a command timeout. */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
