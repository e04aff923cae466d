import { parseArgs } from "node:util";
import { redisStoreFromEnv } from "../stores/redis-env.js";
import type { BreakerStore } from "../stores/store.js";
import { inspectReport, listReport, resetSession, summarize } from "./session-report.js";

/** Where the CLI reads and writes: the entry point (breaker/cli/breaker.ts) passes the process's environment and streams. */
export interface BreakerCliIo {
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Exit codes: done, the session or store was not there, the command line was wrong. */
export const BREAKER_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const USAGE = `Usage: npm run breaker -- <command> [--json] [--prefix <prefix>] [--cluster]

  list                 active sessions: state, calls, last call
  inspect <session>    circuit state, last verdict and why, usage, the call window
  reset <session>      forget a session; its next call starts from scratch

Reads the shared store at REDIS_URL (redis:// or rediss://, user:password@ allowed).
--prefix defaults to BREAKER_REDIS_PREFIX or "cb:"; --cluster (or REDIS_CLUSTER=true) for Redis Cluster.`;

type Command = (store: BreakerStore, sessionId: string, json: boolean, io: BreakerCliIo) => Promise<number>;

const COMMANDS: Record<string, { session: boolean; run: Command }> = {
  list: {
    session: false,
    async run(store, _id, json, io) {
      const snapshots = await Promise.all((await store.sessions()).map((id) => store.snapshot(id)));
      const sessions = snapshots.flatMap((s) => (s ? [summarize(s)] : [])).sort((a, b) => b.lastCallAt - a.lastCallAt);
      io.out(json ? JSON.stringify(sessions, null, 2) : listReport(sessions));
      return BREAKER_EXIT.ok;
    },
  },
  inspect: {
    session: true,
    async run(store, sessionId, json, io) {
      const snapshot = await store.snapshot(sessionId);
      if (json) io.out(JSON.stringify(snapshot, null, 2));
      else if (snapshot) io.out(inspectReport(snapshot));
      else io.err(`Session ${JSON.stringify(sessionId)} not found: unknown, reset, or expired.`);
      return snapshot ? BREAKER_EXIT.ok : BREAKER_EXIT.failed;
    },
  },
  reset: {
    session: true,
    async run(store, sessionId, json, io) {
      const report = await resetSession(store, sessionId);
      if (json) io.out(JSON.stringify(report));
      else io.out(report.existed ? `Reset session ${JSON.stringify(sessionId)}: ${report.forgottenCalls} calls forgotten.` : `Session ${JSON.stringify(sessionId)} was not found; nothing to reset.`);
      return BREAKER_EXIT.ok;
    },
  },
};

/** `npm run breaker` without the process: parse, run one command against REDIS_URL, return the exit code. */
export async function runBreakerCli(argv: readonly string[], io: BreakerCliIo): Promise<number> {
  let values: { json?: boolean; prefix?: string; cluster?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { json: { type: "boolean" }, prefix: { type: "string" }, cluster: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return BREAKER_EXIT.usage;
  }
  if (values.help) {
    io.out(USAGE);
    return BREAKER_EXIT.ok;
  }
  const [name = "", sessionId = "", ...extra] = positionals;
  const command = COMMANDS[name];
  const problem = !name
    ? "No command given."
    : !command
      ? `Unknown command "${name}".`
      : command.session && !sessionId
        ? `"${name}" needs a session id: npm run breaker -- ${name} <session>.`
        : !command.session && sessionId
          ? `"${name}" takes no session id.`
          : extra.length > 0
            ? `Too many arguments: ${extra.join(" ")}.`
            : undefined;
  if (problem || !command) {
    io.err(`${problem}\n\n${USAGE}`);
    return BREAKER_EXIT.usage;
  }
  const env = { ...io.env };
  if (values.prefix !== undefined) env.BREAKER_REDIS_PREFIX = values.prefix;
  if (values.cluster) env.REDIS_CLUSTER = "true";
  let store;
  try {
    // Closed: an operator must see a Redis failure, not an empty in-memory fallback.
    store = redisStoreFromEnv(env, { failMode: "closed", commandTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
  } catch (error) {
    io.err((error as Error).message);
    return BREAKER_EXIT.usage;
  }
  if (!store) {
    io.err(`REDIS_URL is not set: the breaker CLI reads the shared Redis store.\nExample: REDIS_URL=redis://127.0.0.1:6379 npm run breaker -- list`);
    return BREAKER_EXIT.usage;
  }
  try {
    return await command.run(store, sessionId, values.json ?? false, io);
  } catch (error) {
    io.err((error as Error).message);
    return BREAKER_EXIT.failed;
  } finally {
    await store.close();
  }
}
