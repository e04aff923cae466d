import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { SectionResult } from "./section.js";

/** What a section worker sends back: its result and the Redis version, if it started a server. */
export interface WorkerReply {
  result: SectionResult;
  redisVersion?: string;
}

const WORKER = fileURLToPath(new URL("../section-worker.ts", import.meta.url));

/**
 * Run one section in a fresh Node process (same flags, so tsx loads it), so
 * the JIT feedback, caches and garbage one section leaves behind cannot slow
 * or speed up the next: object shapes from the Redis paths, for instance,
 * make the detectors' hot loops polymorphic for the rest of a process.
 */
export function runIsolated(sectionId: string, quick: boolean): Promise<WorkerReply> {
  return new Promise((resolve, reject) => {
    const child = fork(WORKER, [sectionId, ...(quick ? ["--quick"] : [])], { stdio: "inherit" });
    let reply: WorkerReply | undefined;
    child.on("message", (message) => {
      reply = message as WorkerReply;
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (reply) resolve(reply);
      else reject(new Error(`the section process exited (${signal ?? `code ${code}`}) without a result`));
    });
  });
}
