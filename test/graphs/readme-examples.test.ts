import { randomUUID } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_POLICY } from "../../breaker/index.js";
import { buildGraph } from "../../graphs/graph.js";
import { knobLimits } from "../../graphs/limit-knobs.js";
import { EXAMPLE_TOOLS, resetToolFixtures } from "../../tools/index.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";
import { loopingSqlScript } from "../support/openai-scripts.js";
import { readmeExamples, type ReadmeExample } from "../support/readme-example.js";
import { frameOf, textOf, toolMessages, toolReplyProblems, userTurn } from "../support/graph-helpers.js";

const API_KEY = "sk-readme-examples-0123456789";

const written: string[] = [];
/** Write a README example under a unique hidden name beside the file its marker names, so its imports resolve as written. */
async function place(example: ReadmeExample): Promise<string> {
  const path = join(REPO_ROOT, dirname(example.path), `.readme-example-${example.name}-${randomUUID().slice(0, 8)}.ts`);
  written.push(path);
  await writeFile(path, example.source);
  return path;
}

/** Place a README example and import it. */
async function load<T>(name: string): Promise<T> {
  return (await import(pathToFileURL(await place(examples.get(name)!)).href)) as T;
}

let fake: FakeOpenAIServer;
let examples: Map<string, ReadmeExample>;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
  examples = await readmeExamples();
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetToolFixtures();
});
afterAll(async () => {
  await fake.close();
  await Promise.all(written.map((p) => rm(p, { force: true })));
});

type Graph = ReturnType<typeof buildGraph>;
const run = (graph: Graph, thread: string, context: Record<string, unknown> = {}) =>
  graph.invoke(userTurn("Bill Acme for March."), { context: { model: "openai:gpt-4o-mini", ...context } as never, configurable: { thread_id: thread } });

describe("the README's Fork it examples, run as written", () => {
  // The list entry is a fragment of tools/index.ts: test/tools/new-tool.test.ts applies it to a copy of that file.
  const WHOLE_FILES = ["add-a-tool", "tune-the-policy", "breaker-without-langgraph"];

  it("are marked, and type-check with the project's compiler options", async () => {
    expect([...examples.keys()]).toEqual(expect.arrayContaining([...WHOLE_FILES, "add-a-tool-to-the-list"]));
    const paths = await Promise.all(WHOLE_FILES.map((name) => place(examples.get(name)!)));
    const config = ts.getParsedCommandLineOfConfigFile(join(REPO_ROOT, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const program = ts.createProgram(paths, config.options);
    const problems = ts.getPreEmitDiagnostics(program).filter((d) => d.file && paths.includes(d.file.fileName));
    expect(problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  }, 120_000);

  it("Add a tool: the new side-effecting tool runs once, its identical second call is refused", async () => {
    vi.stubEnv("OPENAI_API_KEY", API_KEY);
    vi.stubEnv("OPENAI_BASE_URL", fake.baseURL);
    const invoice = { name: "send_invoice", args: { customer_id: "cust_001", amount_usd: 120 } };
    fake.setScript([{ toolCalls: [invoice] }, { toolCalls: [invoice] }, { content: "Sent." }]);
    const { sendInvoice } = await load<{ sendInvoice: StructuredToolInterface }>("add-a-tool");
    const graph = buildGraph({ tools: [...EXAMPLE_TOOLS, sendInvoice] });
    const state = await run(graph, "fork-tool");
    const replies = toolMessages(state.messages);
    expect(JSON.parse(textOf(replies[0]!))).toEqual({ sent: true, customer_id: "cust_001", amount_usd: 120 });
    expect(frameOf(replies[1]!)).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", tool: "send_invoice", detector: "identical_repeat" });
    expect(state.halted).toBe(true);
    expect(toolReplyProblems(state.messages)).toEqual([]);
  });

  it("Add a tool: its own ToolError reaches the model as an error reply with its sentence", async () => {
    vi.stubEnv("OPENAI_API_KEY", API_KEY);
    vi.stubEnv("OPENAI_BASE_URL", fake.baseURL);
    fake.setScript([{ toolCalls: [{ name: "send_invoice", args: { customer_id: "cust_001", amount_usd: 20_000 } }] }, { content: "Needs approval." }]);
    const { sendInvoice } = await load<{ sendInvoice: StructuredToolInterface }>("add-a-tool");
    const state = await run(buildGraph({ tools: [...EXAMPLE_TOOLS, sendInvoice] }), "fork-tool-error");
    const [reply] = toolMessages(state.messages);
    expect(reply!.status).toBe("error");
    expect(textOf(reply!)).toMatch(/^Error: send_invoice failed: Invoices over \$10,000 need a person's approval/);
    await expect(sendInvoice.invoke({ customer_id: "cust_001", amount_usd: 20_000 })).rejects.toMatchObject({ name: "ToolError", code: "NEEDS_APPROVAL" });
  });

  it("Tune the policy: the injected breaker trips the loop, its listener hears it, and its run limit is the ceiling", async () => {
    vi.stubEnv("OPENAI_API_KEY", API_KEY);
    vi.stubEnv("OPENAI_BASE_URL", fake.baseURL);
    vi.stubEnv("REDIS_URL", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    fake.setScript(loopingSqlScript);
    const { graph } = await load<{ graph: Graph }>("tune-the-policy");
    const state = await run(graph, "fork-policy");
    expect(state.halted).toBe(true);
    expect(warn).toHaveBeenCalledWith("tripped", "thread:fork-policy", expect.arrayContaining([expect.any(String)]));
    await expect(run(graph, "fork-policy-2", { maxCallsPerRun: 21 })).rejects.toThrow(/"maxCallsPerRun" is 21, above this deployment's ceiling of 20/);
    warn.mockRestore();
  });

  it("Use the breaker without LangGraph: repeats are warned about, then refused", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { states } = await load<{ states: string[] }>("breaker-without-langgraph");
    expect(states[0]).toBe("CLOSED");
    expect(states).toContain("HALF_OPEN");
    expect(states.at(-1)).toBe("OPEN");
    expect(log).toHaveBeenCalledWith(states.join(" -> "));
    log.mockRestore();
  });
});
