import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, where langgraph.json lives. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** A running `langgraphjs dev` server started by a test. */
export interface DevServer {
  /** Base URL for @langchain/langgraph-sdk's Client, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Leader of the server's process group. */
  pid: number;
  /** The server's recent output, for failure messages. */
  logs(): string;
  /** Stop the CLI and every process it started (one process group). */
  stop(): Promise<void>;
}

/** Options for `startDevServer`. */
export interface DevServerOptions {
  /** Extra environment for the server (OPENAI_BASE_URL, ...). */
  env?: Record<string, string>;
  /** The langgraph.json to serve; default the repository's. */
  config?: string;
  /** How long to wait for GET /ok before giving up; the first start compiles the graph. */
  readyTimeoutMs?: number;
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * The langgraph.json copied into a scratch directory of its own, so each
 * server keeps its `.langgraph_api` state there (two servers sharing one
 * overwrite each other's files) and the developer's `.env` (which may hold a
 * real OPENAI_API_KEY) is not loaded into a test. The directory sits inside
 * the repository, under the gitignored `.langgraph_api/`, because the server
 * resolves @langchain/langgraph from the graph file's path joined to the
 * config directory: graph paths (and the `http.app` path) must stay relative,
 * and node_modules reachable.
 */
async function scratchConfig(source: string): Promise<{ dir: string; configPath: string }> {
  const config = JSON.parse(await readFile(source, "utf8")) as {
    graphs: Record<string, string | { path: string }>;
    env?: unknown;
    http?: { app?: string };
  };
  const parent = join(REPO_ROOT, ".langgraph_api");
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, "e2e-"));
  const rebase = (spec: string): string => {
    const [file, symbol] = spec.split(":");
    return `${relative(dir, resolve(dirname(source), file ?? ""))}:${symbol ?? "default"}`;
  };
  const graphs = Object.fromEntries(
    Object.entries(config.graphs).map(([id, g]) => [id, typeof g === "string" ? rebase(g) : { ...g, path: rebase(g.path) }]),
  );
  const configPath = join(dir, "langgraph.json");
  const http = config.http?.app ? { http: { ...config.http, app: rebase(config.http.app) } } : {};
  await writeFile(configPath, JSON.stringify({ ...config, graphs, ...http, env: {} }, null, 2));
  return { dir, configPath };
}

function cliPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@langchain/langgraph-cli/package.json")), "dist/cli/cli.mjs");
}

function killGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    // ESRCH: no process of the group is left.
    return false;
  }
}

/** Whether any process of the group led by `pid` is still alive. */
export function groupAlive(pid: number): boolean {
  return killGroup(pid, 0);
}

async function waitGroupGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

async function waitForOk(url: string, child: ChildProcess, timeoutMs: number, logs: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`The server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${logs()}`);
    }
    const ok = await fetch(`${url}/ok`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`The server was not ready on ${url} within ${timeoutMs} ms:\n${logs()}`);
}

/**
 * Environment that keeps a test server quiet, offline and hermetic: no
 * browser, no analytics, no tracing, and none of the developer's REDIS_URL
 * or OpenAI settings (a test passes its own through `env`).
 */
export const HERMETIC_SERVER_ENV: Readonly<Record<string, string>> = {
  LANGGRAPH_CLI_NO_ANALYTICS: "1",
  LANGSMITH_TRACING: "false",
  LANGCHAIN_TRACING_V2: "false",
  BROWSER: "none",
  LOG_LEVEL: "warn",
  REDIS_URL: "",
  OPENAI_API_KEY: "",
  OPENAI_BASE_URL: "",
};

/** How to launch a server process and where it will answer. */
export interface ServerProcessSpec {
  command: string;
  args: string[];
  url: string;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Runs after the process group is gone. */
  cleanup?: () => Promise<void>;
}

/**
 * Spawn a server in a process group of its own and wait until it answers
 * GET /ok. stop() signals the whole group (npm, the CLI, tsx and the node
 * server it starts), so nothing outlives the test, also when the test fails.
 */
export async function startServerProcess(spec: ServerProcessSpec): Promise<DevServer> {
  const child = spawn(spec.command, spec.args, {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...HERMETIC_SERVER_ENV, ...spec.env },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`Could not start ${spec.command} ${spec.args.join(" ")}.`);
  let output = "";
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const logs = (): string => output;
  // If the test process dies without afterAll, the server must not outlive it.
  const onExit = (): void => void killGroup(pid, "SIGKILL");
  process.once("exit", onExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      process.off("exit", onExit);
      killGroup(pid, "SIGTERM");
      // The server flushes its state on SIGTERM; give it a moment, then make sure.
      await waitGroupGone(pid, 5_000);
      killGroup(pid, "SIGKILL");
      await waitGroupGone(pid, 5_000);
      await spec.cleanup?.();
    })());

  try {
    await waitForOk(spec.url, child, spec.readyTimeoutMs ?? 120_000, logs);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: spec.url, pid, logs, stop };
}

/**
 * Start `langgraphjs dev` for the repository's langgraph.json on a free port.
 * No reload: edits elsewhere in the tree must not restart a server under test.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { dir, configPath } = await scratchConfig(options.config ?? join(REPO_ROOT, "langgraph.json"));
  const args = ["dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", String(port), "--studio-url", url, "--config", configPath];
  return startServerProcess({
    command: process.execPath,
    args: [cliPath(), ...args],
    url,
    ...(options.env ? { env: options.env } : {}),
    ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  });
}
