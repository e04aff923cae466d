// The parent's side of redis-worker.ts: a child process running its own
// RedisStore and breaker, asked one thing at a time.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CallCompletion, ToolCallRequest } from "../../breaker/types.js";
import type { WorkerReply, WorkerRequest, WorkerVerdict } from "./redis-worker.js";

const workerScript = fileURLToPath(new URL("./redis-worker.ts", import.meta.url));

/** One worker process and a way to ask it something and await its answer. */
export class WorkerProcess {
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

  /** Check these calls of one session, each on its own, all at once. */
  async run(session: string, calls: ToolCallRequest[]): Promise<WorkerVerdict[]> {
    const reply = await this.ask({ type: "run", session, calls });
    if (reply.type !== "verdicts") throw new Error(`unexpected reply ${reply.type}`);
    return reply.verdicts;
  }

  /** Check these batches (one checkBatch each), all at once. */
  async batches(batches: { session: string; calls: ToolCallRequest[] }[]): Promise<WorkerVerdict[][]> {
    const reply = await this.ask({ type: "batches", batches });
    if (reply.type !== "batches") throw new Error(`unexpected reply ${reply.type}`);
    return reply.verdicts;
  }

  /** Report these outcomes (one completeBatch per session), all at once. */
  async complete(completions: { session: string; completions: CallCompletion[] }[]): Promise<void> {
    const reply = await this.ask({ type: "complete", completions });
    if (reply.type !== "completed") throw new Error(`unexpected reply ${reply.type}`);
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
