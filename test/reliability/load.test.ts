import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBreaker, RedisStore } from "../../breaker/index.js";
import { describeRedis, startRedisServer, waitFor, type RedisServer } from "../support/redis-server.js";
import {
  ALLOWED_CALLS,
  LOAD_OPEN_SECONDS,
  LOAD_POLICIES,
  LOAD_TTL_SECONDS,
  loadCallArgs,
  sessionKind,
  type LoadConfig,
  type WorkerReport,
} from "./support/load-plan.js";
import { reportFigures } from "./support/figures.js";

const WORKER = fileURLToPath(new URL("./support/load-worker.ts", import.meta.url));
const WORKERS = 4;
const SESSIONS = 1_000;
const CALLS = 20;
const PREFIX = "load:";
// After the keys expire, used_memory may keep a few allocator pages and resized hash tables.
const MEMORY_SLACK_BYTES = 256 * 1_024;

/** Start one worker and resolve once it is connected and waiting for "go". */
function startWorker(config: LoadConfig, children: ChildProcess[]): Promise<{ child: ChildProcess; report: Promise<WorkerReport> }> {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, JSON.stringify(config)], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const report = new Promise<WorkerReport>((resolve, reject) => {
    child.once("exit", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code === 0 && last.startsWith("{")) resolve(JSON.parse(last) as WorkerReport);
      else reject(new Error(`worker ${config.worker} exited with ${code}: ${err.slice(-2_000)}`));
    });
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.startsWith("ready\n")) resolve();
    });
    report.catch(reject);
  });
  return ready.then(() => ({ child, report }));
}

/** Redis TIME in epoch ms: the clock openUntil is written in. */
async function redisNow(admin: Redis): Promise<number> {
  const [seconds, micros] = await admin.time();
  return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
}

async function usedMemory(admin: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1]);
}

describeRedis("load: 1,000 concurrent sessions of 20 calls over 4 worker processes", "binary", () => {
  let server: RedisServer;
  let admin: Redis;
  let reader: RedisStore;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
    reader = RedisStore.fromUrl(server.url, { prefix: PREFIX, failMode: "closed", commandTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await reader?.close();
    admin?.disconnect();
    await server?.stop();
  });

  it("admits exactly what the policy allows, loses no outcome, lets OPEN expire and leaves Redis as it found it", async () => {
    // Warm-up: every script loaded and the connections made before the baseline is taken.
    const warm = createBreaker({ store: reader, policy: LOAD_POLICIES.identical });
    for (let i = 0; i < 5; i++) await warm.check("warm-up", { id: `w${i}`, name: "lookup", args: {}, run: "r" });
    await warm.complete("warm-up", "w0", { output: 1 });
    await warm.reset("warm-up");
    expect(await admin.dbsize()).toBe(0);
    const baseline = await usedMemory(admin);

    // Load: every worker takes every 4th call of every session, so each session is hit from 4 processes at once.
    const workers = await Promise.all(
      Array.from({ length: WORKERS }, (_, worker) =>
        startWorker({ url: server.url, prefix: PREFIX, worker, workers: WORKERS, sessions: SESSIONS, callsPerSession: CALLS, commandTimeoutMs: 10_000 }, children),
      ),
    );
    const started = Date.now();
    for (const { child } of workers) child.stdin!.write("go\n");
    const reports = await Promise.all(workers.map((w) => w.report));
    const loadMs = Date.now() - started;
    const peakKeys = await admin.dbsize();
    const peakMemory = Number(/used_memory_peak:(\d+)/.exec(await admin.info("memory"))?.[1]);
    // The identical sessions' count is exact only while their circuits stay OPEN: the phase must end first.
    expect(loadMs, "the load phase outlasted openSeconds; the machine is too slow for this test").toBeLessThan(LOAD_OPEN_SECONDS * 1_000);
    expect(reports.flatMap((r) => r.errors)).toEqual([]);
    expect(reports.reduce((n, r) => n + r.unavailable, 0)).toBe(0);
    expect(reports.reduce((n, r) => n + r.checks, 0)).toBe(SESSIONS * CALLS);

    // Zero over-admissions (and none missing): per session, exactly the policy's number.
    const admitted = new Map<string, string[]>();
    for (const r of reports) for (const [id, calls] of Object.entries(r.admitted)) admitted.set(id, [...(admitted.get(id) ?? []), ...calls]);
    const wrong: string[] = [];
    for (let s = 0; s < SESSIONS; s++) {
      const got = admitted.get(`load-${s}`)?.length ?? 0;
      if (got !== ALLOWED_CALLS[sessionKind(s)]) wrong.push(`load-${s} (${sessionKind(s)}): ${got} admitted`);
    }
    expect(wrong).toEqual([]);

    // Zero lost outcomes: every admitted call, and only those, has its outcome; every call is in the window.
    const breaker = createBreaker({ store: reader });
    const lost: string[] = [];
    let openSessions = 0;
    for (let s = 0; s < SESSIONS; s++) {
      const snapshot = await breaker.inspect(`load-${s}`);
      expect(snapshot.totalCalls).toBe(CALLS);
      expect(snapshot.window).toHaveLength(CALLS);
      const withOutcome = snapshot.window.filter((c) => c.outcome).map((c) => c.id).sort();
      if (withOutcome.join() !== [...(admitted.get(`load-${s}`) ?? [])].sort().join()) lost.push(`load-${s}`);
      // OPEN is set for exactly openSeconds from the call that tripped it, never longer.
      expect(snapshot.circuit.state).toBe("OPEN");
      const tripAt = snapshot.window.find((c) => c.step === snapshot.circuit.asOf)!.at;
      expect(snapshot.circuit.openUntil - tripAt).toBe(LOAD_OPEN_SECONDS * 1_000);
      openSessions++;
    }
    expect(lost).toEqual([]);

    // Every key expires: none was left without a TTL or with a longer one.
    const ttls = await Promise.all((await admin.keys(`${PREFIX}*`)).map((k) => admin.pttl(k)));
    expect(ttls.length).toBe(SESSIONS * 3);
    expect(ttls.filter((t) => t <= 0 || t > LOAD_TTL_SECONDS * 1_000)).toEqual([]);

    // No OPEN state outlives openSeconds: refused before, admitted (fresh loop window) after.
    const identical = Array.from({ length: SESSIONS }, (_, s) => s).filter((s) => sessionKind(s) === "identical");
    const probe = createBreaker({ store: reader, policy: LOAD_POLICIES.identical });
    const ask = (s: number, tag: string) => probe.check(`load-${s}`, { id: `probe-${tag}-${s}`, name: "lookup", args: loadCallArgs("identical", 0), run: "run-1" });
    const before = await Promise.all(identical.map((s) => ask(s, "before")));
    expect(before.filter((v) => v.allowed)).toEqual([]);
    const maxOpenUntil = Math.max(...(await Promise.all(identical.map(async (s) => (await breaker.inspect(`load-${s}`)).circuit.openUntil))));
    await waitFor("every OPEN circuit to reach openUntil", async () => (await redisNow(admin)) > maxOpenUntil, (LOAD_OPEN_SECONDS + 5) * 1_000);
    const after = await Promise.all(identical.map((s) => ask(s, "after")));
    expect(after.filter((v) => !v.allowed).map((v) => v.callId)).toEqual([]);

    // Redis back to its baseline once the TTLs pass.
    await waitFor("every session key to expire", async () => (await admin.dbsize()) === 0, (LOAD_TTL_SECONDS + 10) * 1_000);
    let settled = 0;
    await waitFor("used_memory back near the baseline", async () => (settled = await usedMemory(admin)) <= baseline + MEMORY_SLACK_BYTES, 10_000);

    const checks = SESSIONS * CALLS;
    const figures = {
      workers: WORKERS,
      sessions: SESSIONS,
      calls: CALLS,
      checks,
      loadMs,
      checksPerSecond: Math.round((checks / loadMs) * 1_000),
      slowestCheckMs: Math.round(Math.max(...reports.map((r) => r.maxCheckMs))),
      admitted: [...admitted.values()].reduce((n, c) => n + c.length, 0),
      expectedAdmitted: (SESSIONS / 2) * (ALLOWED_CALLS.distinct + ALLOWED_CALLS.identical),
      allowedDistinct: ALLOWED_CALLS.distinct,
      allowedIdentical: ALLOWED_CALLS.identical,
      overAdmissions: wrong.length,
      lostOutcomes: lost.length,
      unavailable: 0,
      openSessions,
      openSeconds: LOAD_OPEN_SECONDS,
      ttlSeconds: LOAD_TTL_SECONDS,
      refusedBeforeOpenUntil: before.length,
      admittedAfterOpenUntil: after.length,
      peakKeys,
      memoryBaselineBytes: baseline,
      memoryPeakBytes: peakMemory,
      memoryAfterBytes: settled,
      memorySlackBytes: MEMORY_SLACK_BYTES,
    };
    reportFigures(
      { section: "load", scenario: "standalone", figures },
      `load: ${WORKERS} workers, ${SESSIONS} sessions x ${CALLS} calls = ${checks} checks in ${loadMs} ms ` +
        `(${figures.checksPerSecond} checks/s, slowest check ${figures.slowestCheckMs} ms); ` +
        `admitted ${figures.admitted} (expected ${figures.expectedAdmitted}), ` +
        `over-admissions 0, lost outcomes 0, OPEN sessions ${openSessions}, peak keys ${peakKeys}, ` +
        `used_memory baseline ${baseline} B, peak ${peakMemory} B, after the TTLs ${settled} B (DBSIZE 0)`,
    );
  }, 180_000);
});
