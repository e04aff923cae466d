import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, startServerProcess } from "../support/langgraph-dev-server.js";

/** Every process below `root` (Linux `ps`), so processes that left its group are found too. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" }).trim().split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const walk = (pid: number): void => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

/** Whether a process runs (a zombie waiting for its parent to reap it runs no more). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Whether a server could listen on `port` now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return condition();
}

describe.skipIf(process.platform !== "linux")("npm run dev", () => {
  it.each(["SIGINT", "SIGTERM"] as const)("stops the whole server when %s reaches the npm process alone", async (signal) => {
    const port = await freePort();
    const server = await startServerProcess({ command: "npm", args: ["run", "dev"], url: `http://127.0.0.1:${port}`, env: { PORT: String(port) } });
    const tree = [server.pid, ...descendants(server.pid)];
    try {
      // npm, the dev script, the CLI, tsx watch and the server.
      expect(tree.length, server.logs()).toBeGreaterThanOrEqual(5);
      process.kill(server.pid, signal);

      const gone = await waitUntil(() => !tree.some(running), 20_000);
      expect(tree.filter(running), server.logs()).toEqual([]);
      expect(gone).toBe(true);
      expect(await portFree(port)).toBe(true);
    } finally {
      for (const pid of tree.filter(running)) process.kill(pid, "SIGKILL");
      await server.stop();
    }
  }, 180_000);
});
