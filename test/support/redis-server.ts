// Real redis-server processes for tests: standalone or a small Cluster, on
// free ports, in temp dirs, stopped by the suites and killed at exit if a
// suite crashed. REDIS_URL points standalone suites at an existing server.
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { promisify } from "node:util";
import { describe, it } from "vitest";

const run = promisify(execFile);
const HOST = "127.0.0.1";

/** True when a redis-server binary is on PATH. */
export const hasRedisServer: boolean = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

/** An existing server the standalone suites should use instead of starting one. */
export const externalRedisUrl: string | undefined = process.env.REDIS_URL || undefined;

/**
 * `describe` for a Redis suite. `needs: "server"` runs with REDIS_URL or a
 * redis-server binary; `"binary"` needs the binary (the suite kills, pauses
 * or clusters its own servers). Without them the suite is skipped with a loud
 * message, or fails when CI=true.
 */
export function describeRedis(name: string, needs: "server" | "binary", body: () => void): void {
  const missing = needs === "binary" ? !hasRedisServer : !hasRedisServer && !externalRedisUrl;
  if (!missing) {
    describe(name, body);
    return;
  }
  const reason =
    needs === "binary"
      ? "no redis-server binary on PATH (this suite starts its own servers)"
      : "no redis-server binary on PATH and no REDIS_URL";
  if (process.env.CI === "true") {
    describe(name, () => {
      it("has Redis available", () => {
        throw new Error(`Redis suite "${name}" cannot run under CI: ${reason}. Install redis-server (see .ci/run).`);
      });
    });
    return;
  }
  console.warn(
    `\n${"!".repeat(72)}\n!! SKIPPED Redis suite "${name}": ${reason}.\n!! Install redis-server (apt-get install redis-server) or set REDIS_URL.\n${"!".repeat(72)}\n`,
  );
  describe.skip(name, body);
}

/** A key prefix no other test run uses, so suites can share an external server. */
export function uniquePrefix(label = "test"): string {
  return `cbtest:${label}:${randomUUID().slice(0, 8)}:`;
}

// Servers that must not outlive the test process, even when a suite crashes.
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/** A free TCP port on 127.0.0.1 (never 6379); `withBus` also frees port + 10000 for Cluster's bus. */
export async function freePort(withBus = false): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once("error", reject);
      server.listen(0, HOST, () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    if (port === 6379) continue;
    if (!withBus) return port;
    if (port + 10_000 <= 65_535 && (await portIsFree(port + 10_000))) return port;
  }
  throw new Error("no free port found");
}

/** Poll `probe` until it returns true; throws after `timeoutMs` with `what` in the message. */
export async function waitFor(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    if (await Promise.resolve().then(probe).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** TLS files for a server started with `tls`. */
export interface RedisTlsFiles {
  cert: string;
  key: string;
  ca: string;
}

/** How to start a server. */
export interface RedisServerOptions {
  /** Extra redis-server arguments, e.g. ["--cluster-enabled", "yes"]. */
  args?: string[];
  /** Serve TLS only, on the port, with these files. */
  tls?: RedisTlsFiles;
  /** Port to use; a free one by default. */
  port?: number;
  /** Pick a port whose Cluster bus port (+10000) is free too. */
  clusterBus?: boolean;
}

/** A redis-server process under test. */
export interface RedisServer {
  readonly host: string;
  readonly port: number;
  /** redis:// (or rediss:// with TLS) URL without credentials. */
  readonly url: string;
  readonly dir: string;
  /** Run redis-cli against this server (plain servers only); returns stdout. */
  cli(...args: string[]): Promise<string>;
  /** SIGTERM and wait for the exit; removes the temp dir. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit, keeping the dir for `restart`. */
  kill(): Promise<void>;
  /** Start again on the same port and dir (after `kill`, or running: kills first). */
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

function ping(port: number, secure: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = secure
      ? tls.connect({ host: HOST, port, rejectUnauthorized: false })
      : net.connect({ host: HOST, port });
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once(secure ? "secureConnect" : "connect", () => socket.write("PING\r\n"));
    // A server started with --requirepass answers NOAUTH: it is up all the same.
    socket.once("data", (data) => finish(/^(\+PONG|-NOAUTH)/.test(data.toString())));
    socket.once("error", () => finish(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Start a redis-server (no persistence) on a free port and wait until it answers PING. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "redis-test-"));
  let port = options.port ?? (await freePort(options.clusterBus));
  const secure = Boolean(options.tls);
  let child: ChildProcess | undefined;
  let paused = false;

  const args = (): string[] => [
    ...(options.tls
      ? ["--port", "0", "--tls-port", String(port), "--tls-cert-file", options.tls.cert, "--tls-key-file", options.tls.key,
         "--tls-ca-cert-file", options.tls.ca, "--tls-auth-clients", "no"]
      : ["--port", String(port)]),
    "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no",
    ...(options.args ?? []),
  ];

  async function launch(): Promise<void> {
    let output = "";
    const proc = spawn("redis-server", args(), { stdio: ["ignore", "pipe", "pipe"] });
    live.add(proc);
    proc.once("exit", () => live.delete(proc));
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-4_000);
    };
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    child = proc;
    paused = false;
    const gone = (): boolean => proc.exitCode !== null || proc.signalCode !== null;
    try {
      await waitFor(`redis-server on port ${port}`, async () => gone() || ping(port, secure));
      if (gone()) throw new Error(`redis-server exited (${proc.exitCode ?? proc.signalCode})`);
    } catch (error) {
      proc.kill("SIGKILL");
      throw new Error(`${(error as Error).message}\n${output}`);
    }
  }

  // A port picked free can be taken before redis binds it: pick another.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (error) {
      if (options.port !== undefined || attempt === 3) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
      port = await freePort(options.clusterBus);
    }
  }

  async function signalAndWait(signal: NodeJS.Signals): Promise<void> {
    const proc = child;
    if (!proc) return;
    if (paused) proc.kill("SIGCONT");
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5_000);
    await exited(proc);
    clearTimeout(timer);
    child = undefined;
  }

  return {
    host: HOST,
    get port() {
      return port;
    },
    get url() {
      return `${secure ? "rediss" : "redis"}://${HOST}:${port}`;
    },
    dir,
    async cli(...cliArgs) {
      const { stdout } = await run("redis-cli", ["-h", HOST, "-p", String(port), ...cliArgs]);
      return stdout;
    },
    async stop() {
      await signalAndWait("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    },
    kill: () => signalAndWait("SIGKILL"),
    async restart() {
      await signalAndWait("SIGKILL");
      await launch();
    },
    pause() {
      child?.kill("SIGSTOP");
      paused = true;
    },
    resume() {
      child?.kill("SIGCONT");
      paused = false;
    },
  };
}

/** A Redis Cluster under test. */
export interface RedisCluster {
  readonly nodes: RedisServer[];
  /** Seed URL for a Cluster client (any node works). */
  readonly url: string;
  /** The nodes by their current role (changes after a failover). */
  roles(): Promise<{ masters: RedisServer[]; replicas: RedisServer[] }>;
  stop(): Promise<void>;
}

/** How big a cluster to build. */
export interface RedisClusterOptions {
  /** Default 3, the minimum redis-cli accepts. */
  masters?: number;
  /** Replicas per master, for failover tests. Default 0. */
  replicasPerMaster?: number;
}

// Ports of the healthy masters and replicas in a CLUSTER NODES reply.
function parseRoles(clusterNodes: string): { masters: number[]; replicas: number[] } {
  const result = { masters: [] as number[], replicas: [] as number[] };
  for (const line of clusterNodes.trim().split("\n")) {
    const [, address = "", flags = ""] = line.split(" ");
    const port = Number(address.split("@")[0]?.split(":").at(-1));
    if (!port || flags.includes("fail")) continue;
    if (flags.includes("master")) result.masters.push(port);
    else if (flags.includes("slave")) result.replicas.push(port);
  }
  return result;
}

/** Start masters (and replicas), join them with `redis-cli --cluster create`, and wait until every node reports cluster_state:ok. */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  const count = masters * (1 + replicas);
  const nodes: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    // One at a time: each start checks its own port and bus port are free.
    for (let i = 0; i < count; i++) {
      nodes.push(
        await startRedisServer({
          clusterBus: true,
          args: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"],
        }),
      );
    }
    await run("redis-cli", [
      "--cluster", "create", ...nodes.map((n) => `${n.host}:${n.port}`),
      "--cluster-replicas", String(replicas), "--cluster-yes",
    ]);
    // Every node must agree: all slots served, all nodes known, every replica seen as one.
    await waitFor("every node to agree on the cluster", async () => {
      const infos = await Promise.all(nodes.map((n) => n.cli("cluster", "info")));
      if (!infos.every((info) => info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${count}`))) return false;
      const views = await Promise.all(nodes.map((n) => n.cli("cluster", "nodes")));
      return views.every((view) => parseRoles(view).replicas.length === masters * replicas);
    }, 30_000);
    if (replicas > 0) {
      // A replica still syncing refuses to fail over: wait until every one is linked to its master.
      await waitFor("every replica linked to its master", async () => {
        const infos = await Promise.all(nodes.map((n) => n.cli("info", "replication")));
        return infos.filter((info) => info.includes("role:slave") && info.includes("master_link_status:up")).length === masters * replicas;
      }, 30_000);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    url: nodes[0]!.url,
    async roles() {
      const byPort = new Map(nodes.map((n) => [n.port, n]));
      const { masters: m, replicas: r } = parseRoles(await nodes[0]!.cli("cluster", "nodes"));
      const pick = (ports: number[]): RedisServer[] => ports.flatMap((p) => byPort.get(p) ?? []);
      return { masters: pick(m), replicas: pick(r) };
    },
    stop,
  };
}

/** The Redis a standalone suite uses: REDIS_URL when set, otherwise a fresh redis-server it must stop. */
export async function standaloneRedis(): Promise<{ url: string; server?: RedisServer; stop(): Promise<void> }> {
  if (externalRedisUrl) return { url: externalRedisUrl, stop: async () => {} };
  const server = await startRedisServer();
  return { url: server.url, server, stop: () => server.stop() };
}
