import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Folders each production folder may not import from (docs/ARCHITECTURE.md, "Which folder may import which"). */
const FORBIDDEN: Record<string, string[]> = {
  breaker: ["graphs", "nodes", "tools", "middleware", "server", "demo"],
  tools: ["graphs", "nodes", "middleware", "server", "demo"],
  // The model loader reaches demo/ only through a dynamic import(), when a run names scripted:...
  nodes: ["graphs", "middleware", "server", "demo"],
  middleware: ["graphs", "server", "demo"],
  graphs: ["middleware", "server", "demo"],
  server: ["middleware", "demo"],
};

describe("which folder may import which", () => {
  it.each(Object.entries(FORBIDDEN))("%s/ imports nothing from %j", (folder, forbidden) => {
    const pattern = new RegExp(`from "(\\.\\./)+(${forbidden.join("|")})/`);
    const offending = sources(join(root, folder)).filter((file) => pattern.test(readFileSync(file, "utf8")));
    expect(offending).toEqual([]);
  });
});

describe("the breaker library's boundaries", () => {
  it("imports nothing from LangGraph, LangChain, the graph, the nodes or the tools", () => {
    for (const file of sources(join(root, "breaker"))) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(/from "@langchain\/|from "langchain"|from "\.\.\/(\.\.\/)?(graphs|nodes|tools|middleware)\//);
    }
  });

  it("loads ioredis only when a Redis store is built", async () => {
    const script = `
      const { createRequire } = await import("node:module");
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes("/node_modules/ioredis/"));
      const breaker = await import("./breaker/index.ts");
      const b = breaker.createBreaker();
      await b.check("s", { id: "c1", name: "t", args: {} });
      const before = loaded();
      const store = new breaker.RedisStore({ url: "redis://127.0.0.1:1", connectTimeoutMs: 50 });
      const after = loaded();
      await store.close();
      console.log(JSON.stringify({ before, after }));`;
    const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root });
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({ before: false, after: true });
  });
});
