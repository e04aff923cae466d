import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";

// "Adding a tool is one file and one list entry": proved on a scratch copy of the
// project, where a new tool file is dropped into tools/ and joins the list in
// tools/index.ts, then the derived tests (test/tools/index.test.ts) run in a child
// vitest. A second, careless tool (no field description, no nature, no examples)
// joins too: the derived tests must catch it, or they would prove nothing.

const run = promisify(execFile);

// What the derived tests import, copied (not linked: a linked module would import the original tools/).
const COPIED = ["breaker", "graphs", "nodes", "tools", "demo", "test/support", "test/setup.ts", "test/tools/index.test.ts", "vitest.config.ts", "package.json", "tsconfig.json"];

const NEW_TOOL = `import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { ToolError } from "./tool-error.js";

/** A support ticket by id; a closed ticket is refused with a code of this tool's own. */
export const lookupTicket = defineTool(
  {
    name: "lookup_ticket",
    description: "Look up a support ticket by its id and return its status and subject.",
    schema: z.object({
      ticket_id: z.string().regex(/^T-\\d+$/).describe('The ticket id, such as "T-42".'),
      verbose: z.boolean().default(false).describe("Include the ticket's full history."),
    }),
    nature: "read_only",
    timeoutMs: 2_000,
    examples: [{ ticket_id: "T-42" }, { ticket_id: "T-7", verbose: true }],
  },
  ({ ticket_id, verbose }) => {
    if (ticket_id === "T-0") throw new ToolError("TICKET_ARCHIVED", "Ticket T-0 is archived; ask for a newer one.");
    return { ticket_id, status: "open", subject: "Printer on fire", ...(verbose ? { history: ["opened"] } : {}) };
  },
);
`;

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
  for (const path of COPIED) await cp(join(REPO_ROOT, path), join(scratch, path), { recursive: true });
  await symlink(join(REPO_ROOT, "node_modules"), join(scratch, "node_modules"), "dir");

  // The two steps of the README: write tools/<name>.ts, add it to the list in tools/index.ts.
  await writeFile(join(scratch, "tools/lookup-ticket.ts"), NEW_TOOL);
  await writeFile(join(scratch, "tools/careless-probe.ts"), CARELESS_TOOL);
  const indexPath = join(scratch, "tools/index.ts");
  const index = await readFile(indexPath, "utf8");
  const list = "export const EXAMPLE_TOOLS = [\n";
  expect(index).toContain(list);
  const imports = 'import { lookupTicket } from "./lookup-ticket.js";\nimport { carelessProbe } from "./careless-probe.js";\n';
  await writeFile(indexPath, imports + index.replace(list, `${list}  lookupTicket,\n  carelessProbe,\n`));

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

describe("adding a tool: a file in tools/ and an entry in the list", () => {
  it("type-checks, its own error code included", () => {
    expect(typeErrors).toEqual([]);
  });

  it("is exercised by every derived tool test, and passes them all", () => {
    const reference = testsOf("query_crm");
    const added = testsOf("lookup_ticket");
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
    expect(others.length).toBeGreaterThan(testsOf("lookup_ticket").size);
    expect(others.filter((r) => r.status !== "passed").map((r) => `${r.ancestorTitles.join(" > ")} > ${r.title}`)).toEqual([]);
  });
});
