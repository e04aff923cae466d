import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ToolCallRequest } from "../../breaker/types.js";
import { describeRedis, standaloneRedis, uniquePrefix } from "../support/redis-server.js";
import type { WorkerReply, WorkerRequest } from "./redis-worker.js";
import { TestStores } from "./redis-test-stores.js";

const WORKERS = 5;
const workerScript = fileURLToPath(new URL("./redis-worker.ts", import.meta.url));

/** One worker process and a way to ask it something and await its answer. */
class Worker {
  readonly child: ChildProcess = fork(workerScript, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });

  ask(request: WorkerRequest): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`worker exited (${code}) before answering`));
      this.child.once("exit", onExit);
      this.child.once("message", (reply: WorkerReply) => {
        this.child.off("exit", onExit);
        if (reply.type === "error") reject(new Error(`worker failed: ${reply.message}`));
        else resolve(reply);
      });
      this.child.send(request);
    });
  }

  async run(session: string, calls: ToolCallRequest[]) {
    const reply = await this.ask({ type: "run", session, calls });
    if (reply.type !== "verdicts") throw new Error(`unexpected reply ${reply.type}`);
    return reply.verdicts;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    if (this.child.connected) this.child.send({ type: "stop" } satisfies WorkerRequest);
    else this.child.kill("SIGKILL");
    await exited;
    clearTimeout(timer);
  }
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describeRedis("RedisStore across processes", "server", () => {
  let redis: Awaited<ReturnType<typeof standaloneRedis>> | undefined;
  const prefix = uniquePrefix("atomic");
  const stores = new TestStores(() => redis!.url);
  const workers: Worker[] = [];
  beforeAll(async () => {
    redis = await standaloneRedis();
    for (let i = 0; i < WORKERS; i++) workers.push(new Worker());
    const replies = await Promise.all(workers.map((w) => w.ask({ type: "init", url: redis!.url, prefix })));
    expect(replies.every((r) => r.type === "ready")).toBe(true);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await stores.cleanup();
    await redis?.stop();
  });

  it(`gives ${WORKERS} processes checking one session at once one linear history`, async () => {
    const perWorker = 20;
    const results = await Promise.all(
      workers.map((w, k) => w.run("linear", range(perWorker).map((i) => ({ id: `w${k}-${i}`, name: "search", args: { k, i } })))),
    );
    const verdicts = results.flat();
    expect(verdicts.every((v) => v.detector !== "store_unavailable")).toBe(true);
    expect(verdicts.map((v) => v.step).sort((a, b) => a - b)).toEqual(range(WORKERS * perWorker).map((i) => i + 1));
    // Every process's view agrees with what Redis holds: one order of calls.
    const store = stores.create({ prefix });
    const snapshot = (await store.snapshot("linear"))!;
    const stepOf = new Map(verdicts.map((v) => [v.callId, v.step]));
    expect(snapshot.window.map((c) => c.step)).toEqual(range(WORKERS * perWorker).map((i) => i + 1));
    expect(snapshot.window.map((c) => stepOf.get(c.id))).toEqual(snapshot.window.map((c) => c.step));
  });

  it(`admits exactly 3 of 50 identical checks sent at once by ${WORKERS} processes, every time`, async () => {
    for (let round = 0; round < 5; round++) {
      const session = `burst-${round}`;
      const results = await Promise.all(
        workers.map((w, k) => w.run(session, range(50 / WORKERS).map((i) => ({ id: `r${round}-w${k}-${i}`, name: "search", args: { q: "same" } })))),
      );
      const verdicts = results.flat();
      expect(verdicts.every((v) => v.detector !== "store_unavailable")).toBe(true);
      expect(verdicts.filter((v) => v.allowed).map((v) => v.step).sort((a, b) => a - b)).toEqual([1, 2, 3]);
      expect(new Set(verdicts.map((v) => v.step)).size).toBe(50);
    }
  });
});
