import { randomUUID } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { buildGraph } from "../../graphs/graph.js";
import { resetToolFixtures } from "../../tools/index.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";
import { loopingSqlScript } from "../support/openai-scripts.js";
import { frameOf, textOf, toolMessages, toolReplyProblems, userTurn } from "../support/graph-helpers.js";

const API_KEY = "sk-readme-examples-0123456789";

/** The TypeScript blocks of the README's "Fork it" section, in order. */
async function forkItExamples(): Promise<string[]> {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Fork it"), readme.indexOf("\n## ", readme.indexOf("## Fork it") + 1));
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const written: string[] = [];
/** Write an example at the project root, where its imports point, and import it. */
async function load<T>(source: string): Promise<T> {
  const path = join(REPO_ROOT, `.readme-example-${randomUUID().slice(0, 8)}.ts`);
  written.push(path);
  await writeFile(path, source);
  return (await import(pathToFileURL(path).href)) as T;
}

let fake: FakeOpenAIServer;
let examples: string[];
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
  examples = await forkItExamples();
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
  it("are three, and type-check with the project's compiler options", async () => {
    expect(examples).toHaveLength(3);
    const paths = await Promise.all(examples.map(async (source, i) => {
      const path = join(REPO_ROOT, `.readme-example-typecheck-${i}-${randomUUID().slice(0, 8)}.ts`);
      written.push(path);
      await writeFile(path, source);
      return path;
    }));
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
    const { graph } = await load<{ graph: Graph }>(examples[0]!);
    const state = await run(graph, "fork-tool");
    const replies = toolMessages(state.messages);
    expect(JSON.parse(textOf(replies[0]!))).toEqual({ sent: true, customer_id: "cust_001", amount_usd: 120 });
    expect(frameOf(replies[1]!)).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", tool: "send_invoice", detector: "identical_repeat" });
    expect(state.halted).toBe(true);
    expect(toolReplyProblems(state.messages)).toEqual([]);
  });

  it("Tune the policy: the injected breaker trips the loop, its listener hears it, and its run limit is the ceiling", async () => {
    vi.stubEnv("OPENAI_API_KEY", API_KEY);
    vi.stubEnv("OPENAI_BASE_URL", fake.baseURL);
    vi.stubEnv("REDIS_URL", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    fake.setScript(loopingSqlScript);
    const { graph } = await load<{ graph: Graph }>(examples[1]!);
    const state = await run(graph, "fork-policy");
    expect(state.halted).toBe(true);
    expect(warn).toHaveBeenCalledWith("tripped", "thread:fork-policy", expect.arrayContaining([expect.any(String)]));
    await expect(run(graph, "fork-policy-2", { maxCallsPerRun: 21 })).rejects.toThrow(/"maxCallsPerRun" is 21, above this deployment's ceiling of 20/);
    warn.mockRestore();
  });

  it("Use the breaker without LangGraph: repeats are warned about, then refused", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { states } = await load<{ states: string[] }>(examples[2]!);
    expect(states[0]).toBe("CLOSED");
    expect(states).toContain("HALF_OPEN");
    expect(states.at(-1)).toBe("OPEN");
    expect(log).toHaveBeenCalledWith(states.join(" -> "));
    log.mockRestore();
  });
});
