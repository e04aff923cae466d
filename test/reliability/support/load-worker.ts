// One load-test worker process: its share of every session's calls against
// one Redis, started on "go" so all workers hit the same sessions at once.
// Prints one JSON line of results on stdout.
import { createInterface } from "node:readline";
import { createBreaker, RedisStore } from "../../../breaker/index.js";
import { LOAD_POLICIES, loadCallArgs, loadOutput, sessionKind, type LoadConfig, type WorkerReport } from "./load-plan.js";

const config = JSON.parse(process.argv[2] ?? "{}") as LoadConfig;
const store = RedisStore.fromUrl(config.url, { prefix: config.prefix, failMode: "closed", commandTimeoutMs: config.commandTimeoutMs });
const breakers = {
  distinct: createBreaker({ store, policy: LOAD_POLICIES.distinct }),
  identical: createBreaker({ store, policy: LOAD_POLICIES.identical }),
};

const report: WorkerReport = { worker: config.worker, admitted: {}, refused: 0, unavailable: 0, errors: [], checks: 0, maxCheckMs: 0, elapsedMs: 0 };

async function runSession(s: number): Promise<void> {
  const sessionId = `load-${s}`;
  const kind = sessionKind(s);
  const breaker = breakers[kind];
  for (let i = config.worker; i < config.callsPerSession; i += config.workers) {
    const id = `${sessionId}-c${i}`;
    const started = performance.now();
    try {
      const verdict = await breaker.check(sessionId, { id, name: "lookup", args: loadCallArgs(kind, i), run: "run-1" });
      report.maxCheckMs = Math.max(report.maxCheckMs, performance.now() - started);
      report.checks++;
      if (verdict.findings.some((f) => f.detector === "store_unavailable")) report.unavailable++;
      if (!verdict.allowed) {
        report.refused++;
        continue;
      }
      (report.admitted[sessionId] ??= []).push(id);
      await breaker.complete(sessionId, id, { output: loadOutput(kind, i) });
    } catch (error) {
      report.errors.push(`${id}: ${(error as Error).message}`);
    }
  }
}

async function main(): Promise<void> {
  // Connected and scripts loaded before the start signal, so the load phase measures only the load.
  await store.snapshot("warm-up");
  process.stdout.write("ready\n");
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once("line", () => resolve()));
  lines.close();
  const started = performance.now();
  await Promise.all(Array.from({ length: config.sessions }, (_, s) => runSession(s)));
  report.elapsedMs = performance.now() - started;
  await store.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`load worker failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
