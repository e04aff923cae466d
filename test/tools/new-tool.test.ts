import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";
import { readmeExample } from "../support/readme-example.js";

// "Adding a tool is one file and one list entry", as the README's "Add a tool"
// says it, proved on a scratch copy of the project: the README's tool file is
// dropped into tools/, its README entry joins the list in tools/index.ts, then
// the derived tests (test/tools/index.test.ts) run in a child vitest. A second,
// careless tool (no field description, no nature, no examples) joins too: the
// derived tests must catch it, or they would prove nothing.

const run = promisify(execFile);

// What the derived tests import, copied (not linked: a linked module would import the original tools/).
const COPIED = ["breaker", "graphs", "nodes", "tools", "demo", "test/support", "test/setup.ts", "test/tools/index.test.ts", "vitest.config.ts", "package.json", "tsconfig.json"];

const CARELESS_TOOL = `import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** A tool written without defineTool: no nature, no examples, an undescribed field. */
export const carelessProbe = tool(async ({ q }) => ({ q }), {
  name: "careless_probe",
  description: "Echo a query back, for the test that the derived tool tests catch omissions.",
  schema: z.object({ q: z.string() }),
});
`;

interface AssertionResult {
  ancestorTitles: string[];
  title: string;
  status: string;
}

let scratch: string;
let results: AssertionResult[];
let typeErrors: string[];

/** The derived tests' results for one tool, by test title. */
function testsOf(tool: string): Map<string, string> {
  return new Map(results.filter((r) => r.ancestorTitles.includes(`tool ${tool}`)).map((r) => [r.title, r.status]));
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "new-tool-"));
  // Dotfiles left out: other tests write hidden README examples into the project while they run.
  const visible = (src: string) => !basename(src).startsWith(".");
  for (const path of COPIED) await cp(join(REPO_ROOT, path), join(scratch, path), { recursive: true, filter: visible });
  await symlink(join(REPO_ROOT, "node_modules"), join(scratch, "node_modules"), "dir");

  // The two steps of the README: write the tool's file, add it to the list in tools/index.ts.
  const tool = await readmeExample("add-a-tool");
  const entry = await readmeExample("add-a-tool-to-the-list");
  expect(entry.path).toBe("tools/index.ts");
  await writeFile(join(scratch, tool.path), tool.source);
  await writeFile(join(scratch, "tools/careless-probe.ts"), CARELESS_TOOL);
  const indexPath = join(scratch, "tools/index.ts");
  const index = await readFile(indexPath, "utf8");
  const list = "export const EXAMPLE_TOOLS = [\n";
  expect(index).toContain(list);
  const lines = entry.source.split("\n").map((l) => l.trim());
  const imports = lines.filter((l) => l.startsWith("import "));
  const items = lines.slice(lines.indexOf(list.trim()) + 1, lines.indexOf("];")).filter((l) => l && !l.startsWith("//"));
  expect(imports.length * items.length).toBeGreaterThan(0);
  imports.push('import { carelessProbe } from "./careless-probe.js";');
  items.push("carelessProbe,");
  await writeFile(indexPath, `${imports.join("\n")}\n${index.replace(list, `${list}${items.map((i) => `  ${i}\n`).join("")}`)}`);

  const config = ts.getParsedCommandLineOfConfigFile(join(scratch, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram([indexPath], config.options);
  typeErrors = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName.startsWith(join(scratch, "tools")))
    .map((d) => `${d.file!.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);

  const report = join(scratch, "report.json");
  const vitest = join(REPO_ROOT, "node_modules/vitest/vitest.mjs");
  // The careless tool fails some derived tests, so vitest exits 1: the report says which.
  await run(process.execPath, [vitest, "run", "test/tools/index.test.ts", "--reporter=json", `--outputFile=${report}`], { cwd: scratch }).catch(() => undefined);
  results = (JSON.parse(await readFile(report, "utf8")) as { testResults: { assertionResults: AssertionResult[] }[] }).testResults.flatMap((f) => f.assertionResults);
}, 180_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the README's Add a tool: its file in tools/ and its entry in the list", () => {
  it("type-checks, its own error code included", () => {
    expect(typeErrors).toEqual([]);
  });

  it("is exercised by every derived tool test, and passes them all", () => {
    const reference = testsOf("query_crm");
    const added = testsOf("send_invoice");
    expect(reference.size).toBeGreaterThanOrEqual(5);
    expect([...added.keys()].sort()).toEqual([...reference.keys()].sort());
    expect([...added.values()].every((s) => s === "passed"), JSON.stringify([...added])).toBe(true);
  });

  it("is caught by the derived tests when it leaves out what a tool must declare", () => {
    const careless = testsOf("careless_probe");
    expect(careless.get("describes itself and every argument for the model")).toBe("failed");
    expect(careless.get("declares its nature and its timeout")).toBe("failed");
    expect(careless.get("declares example arguments its schema accepts")).toBe("failed");
  });

  it("leaves the tests of the other tools passing", () => {
    const others = results.filter((r) => !r.ancestorTitles.includes("tool careless_probe"));
    expect(others.length).toBeGreaterThan(testsOf("send_invoice").size);
    expect(others.filter((r) => r.status !== "passed").map((r) => `${r.ancestorTitles.join(" > ")} > ${r.title}`)).toEqual([]);
  });
});
