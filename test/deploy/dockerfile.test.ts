import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import ignore from "ignore";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";

const run = promisify(execFile);
const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

const langgraphJson = async (): Promise<{ node_version: string; graphs: Record<string, string>; http?: object; auth?: object }> =>
  JSON.parse(await readFile(join(REPO_ROOT, "langgraph.json"), "utf8"));

describe("the Dockerfile `langgraphjs dockerfile` generates for this project", () => {
  it("builds on the Node 20 server image, adds the project, installs it and registers the graph", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dockerfile-"));
    scratch.push(dir);
    const target = join(dir, "Dockerfile");
    // The CLI the docs tell users to run, with the project's langgraph.json (found from the working directory).
    await run("npx", ["--no-install", "langgraphjs", "dockerfile", target], {
      cwd: REPO_ROOT,
      env: { ...process.env, LANGGRAPH_CLI_NO_ANALYTICS: "1" },
      timeout: 60_000,
    });
    const lines = (await readFile(target, "utf8")).split("\n");
    const config = await langgraphJson();
    const home = `/deps/${basename(REPO_ROOT)}`;

    expect(config.node_version).toBe("20");
    expect(lines[0]).toBe("FROM langchain/langgraphjs-api:20");
    expect(lines).toContain(`ADD . ${home}`);
    expect(lines).toContain(`WORKDIR ${home}`);
    expect(lines).toContain("RUN npm ci");
    // The server reads langgraph.json's sections from ENV lines: the graphs, and the HTTP app and auth when configured.
    const env = Object.fromEntries(
      lines.flatMap((l) => [...l.matchAll(/^ENV (\w+)='(.*)'$/g)].map((m) => [m[1], JSON.parse(m[2]!)])),
    );
    expect(Object.keys(env).sort()).toEqual(["LANGSERVE_GRAPHS", ...(config.http ? ["LANGGRAPH_HTTP"] : []), ...(config.auth ? ["LANGGRAPH_AUTH"] : [])].sort());
    expect(env.LANGSERVE_GRAPHS).toEqual(config.graphs);
    // The CLI writes the http section with its defaults filled in: every route group stays enabled beside the app.
    if (config.http) {
      expect(env.LANGGRAPH_HTTP).toMatchObject(config.http);
      for (const [key, value] of Object.entries(env.LANGGRAPH_HTTP as Record<string, unknown>)) {
        if (key.startsWith("disable_")) expect(value, key).toBe(false);
      }
    }
    if (config.auth) expect(env.LANGGRAPH_AUTH).toMatchObject(config.auth);
    // The registered graph is a file of the project that exports it.
    const [file, exported] = config.graphs.agent!.split(":");
    expect(existsSync(join(REPO_ROOT, file!))).toBe(true);
    expect(await readFile(join(REPO_ROOT, file!), "utf8")).toMatch(new RegExp(`export const ${exported}\\b`));
  }, 90_000);
});

describe(".dockerignore: the build context the Dockerfile's `ADD .` sends", () => {
  // The `ignore` package reads gitignore rules; for these root-level names Docker's rules agree.
  const rules = async () => ignore().add(await readFile(join(REPO_ROOT, ".dockerignore"), "utf8"));

  it("leaves out dependencies, secrets, version control, scratch space, local server state and test artifacts", async () => {
    const dockerignore = await rules();
    for (const path of [
      "node_modules/zod/package.json",
      ".env",
      ".env.production",
      ".git/HEAD",
      ".scratch/notes.md",
      ".langgraph_api/.langgraphjs_api.checkpointer.json",
      "coverage/index.html",
      "bench/results/run.tmp.json",
      ".readme-example-1234abcd.ts",
    ]) {
      expect(dockerignore.ignores(path), path).toBe(true);
    }
  });

  it("keeps every file of the project in git that the server may need", async () => {
    const dockerignore = await rules();
    const { stdout } = await run("git", ["ls-files"], { cwd: REPO_ROOT });
    const tracked = stdout.split("\n").filter(Boolean);
    expect(tracked).toEqual(expect.arrayContaining(["package.json", "package-lock.json", "langgraph.json", "graphs/graph.ts", ".env.example"]));
    // Only the deployment files themselves and git's own file stay out.
    expect(tracked.filter((path) => dockerignore.ignores(path)).sort()).toEqual([".dockerignore", ".gitignore", "compose.yaml"]);
  });
});
