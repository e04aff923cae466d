import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";

// What the README's "Drop the demo and the example tools" promises a fork: the
// demo is one folder the production code does not reach into, and the example
// tools' fixtures are read by the example tools alone.

const PRODUCTION = ["graphs", "nodes", "breaker", "tools", "middleware", "server"];
// The model loader's way in, taken only for a `scripted:` model name: the demo's one entry.
const SCRIPTED_LOADER = "nodes/model/load-chat-model.ts";
const DEMO_ENTRY = "../../demo/index.js";

/** The project's TypeScript sources under `dir`, relative to the root; hidden files (tests' scratch files) left out. */
function sources(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith(".")) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? sources(path) : e.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every module specifier a source imports, statically or dynamically. */
function importsOf(path: string): string[] {
  const text = readFileSync(join(REPO_ROOT, path), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
}

describe("the demo unit", () => {
  it("is not imported by the production folders, but for the scripted model's one entry", () => {
    const reaches = PRODUCTION.flatMap(sources).flatMap((path) =>
      importsOf(path)
        .filter((spec) => /(^|\/)demo\//.test(spec))
        .map((spec) => `${path} -> ${spec}`),
    );
    expect(reaches.filter((r) => r !== `${SCRIPTED_LOADER} -> ${DEMO_ENTRY}`)).toEqual([]);
    // And that one entry is a dynamic import(), so a graph that never names scripted:... never loads the demo.
    const loader = readFileSync(join(REPO_ROOT, SCRIPTED_LOADER), "utf8");
    expect(loader).toContain(`import("${DEMO_ENTRY}")`);
    expect(loader).not.toMatch(new RegExp(`from\\s*"${DEMO_ENTRY.replaceAll(".", "\\.")}"`));
  });

  it("holds the scripted model, its scenarios and the demo script", () => {
    const files = sources("demo").map((p) => relative("demo", p));
    expect(files).toEqual(expect.arrayContaining(["index.ts", "scripted-chat-model.ts", "scenarios.ts", "scenario-runner.ts", "run-demo.ts"]));
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.demo).toMatch(/ demo\/run-demo\.ts$/);
  });
});

describe("the example tools' fixtures", () => {
  it("are imported by tool files only, never by the tools' machinery or another folder", () => {
    const machinery = ["tools/index.ts", "tools/define-tool.ts", "tools/tool-error.ts"];
    const outside = [...PRODUCTION.filter((d) => d !== "tools").flatMap(sources), ...sources("demo"), ...machinery];
    const readers = outside.filter((path) => importsOf(path).some((spec) => spec.includes("fixtures/")));
    expect(readers).toEqual([]);
    // The check above looks at real files: the tools do read their data from there.
    expect(sources("tools").filter((path) => importsOf(path).some((spec) => spec.startsWith("./fixtures/"))).length).toBeGreaterThan(0);
  });
});
