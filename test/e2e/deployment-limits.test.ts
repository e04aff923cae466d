import { Client, type Message } from "@langchain/langgraph-sdk";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Verdict } from "../../breaker/index.js";
import { CONTEXT_FIELDS } from "../../graphs/context.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { REPO_ROOT, startDevServer, type DevServer } from "../support/langgraph-dev-server.js";
import { toolRepliesThisTurn } from "../support/openai-scripts.js";
import { waitFor } from "../support/redis-server.js";
import { runawaySql } from "../support/runaway.js";

const API_KEY = "sk-fake-deployment-limits";
const MODEL = { model: "openai:gpt-4o-mini" };
// The operator's limits for this server: 20 calls a run (so the run limit, not the session's rate, stops a runaway).
const RUN_LIMIT = 20;

interface AgentState {
  messages: Message[];
  sessionId: string;
  halted: boolean;
  verdicts: Verdict[];
}

let fake: FakeOpenAIServer;
let server: DevServer;
let client: Client;
let probeDir: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
  probeDir = await mkdtemp(join(tmpdir(), "probe-"));
  server = await startDevServer({
    config: join(REPO_ROOT, "test/e2e/support/probe-langgraph.json"),
    env: {
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: fake.baseURL,
      BREAKER_MAX_CALLS_PER_RUN: String(RUN_LIMIT),
      BREAKER_MAX_CALLS_PER_WINDOW: "100",
      BREAKER_CALLER_SESSIONS: "true",
      PROBE_DIR: probeDir,
    },
  });
  client = new Client({ apiUrl: server.url });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  if (probeDir) await rm(probeDir, { recursive: true, force: true });
}, 30_000);

beforeEach(() => {
  fake.requests.length = 0;
});

const userTurn = (content: string) => ({ messages: [{ role: "user", content }] });
const toolCalls = (messages: Message[]) => messages.flatMap((m) => (m.type === "ai" ? (m.tool_calls ?? []).map((c) => c.id ?? "") : []));
const toolReplies = (messages: Message[]) => messages.flatMap((m) => (m.type === "tool" ? [m] : []));

/** A model that never repeats itself and never stops: each turn a new query with a new answer. */
function runaway(): void {
  fake.setScript((request) => ({ toolCalls: [{ name: "query_database", args: { sql: runawaySql(toolRepliesThisTurn(request.messages)) } }] }));
}

/** Run a turn to its end and return the thread's values. */
async function wait(graphId: string, threadId: string, payload: Record<string, unknown>): Promise<AgentState> {
  return (await client.runs.wait(threadId, graphId, payload)) as unknown as AgentState;
}

/** The error a refused run fails with: the SDK throws it, its message the server's JSON. */
async function refusal(run: Promise<unknown>): Promise<{ error: string; message: string }> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return JSON.parse((error as Error).message.replace(/^Error: /, "")) as { error: string; message: string };
}

describe("the limits a deployment holds its callers to, on the LangGraph dev server", () => {
  it("ends a runaway model that never repeats itself through circuit_fallback at the run limit, with no client recursion limit", async () => {
    runaway();
    const thread = await client.threads.create();
    const state = await wait("agent", thread.thread_id, { input: userTurn("Audit every order."), context: MODEL });

    expect(state.halted).toBe(true);
    const calls = toolCalls(state.messages);
    // LangGraph's default recursion limit of 25 allows about 12 tool steps; the graph carries its own.
    expect(calls).toHaveLength(RUN_LIMIT);
    expect(toolReplies(state.messages).map((m) => m.tool_call_id).sort()).toEqual([...calls].sort());
    const trip = state.verdicts.find((v) => !v.allowed);
    expect(trip?.findings).toContainEqual(expect.objectContaining({ detector: "run_calls", severity: "block" }));
    expect(state.messages.at(-1)?.type).toBe("ai");
    expect(fake.completions()).toHaveLength(RUN_LIMIT);
  });

  it("ends gracefully when the client passes a lower recursion limit", async () => {
    runaway();
    const thread = await client.threads.create();
    const state = await wait("agent", thread.thread_id, { input: userTurn("Audit every order."), context: MODEL, config: { recursion_limit: 10 } });

    expect(state.halted).toBe(true);
    const replies = toolReplies(state.messages);
    expect(replies.map((m) => m.tool_call_id).sort()).toEqual(toolCalls(state.messages).sort());
    expect(JSON.parse(String(replies.at(-1)?.content))).toMatchObject({ error: "STEP_LIMIT_REACHED", ran: false });
    expect(String(state.messages.at(-1)?.content)).toMatch(/step limit \(recursion limit 10\)/);
  });

  it("refuses a context asking for maxCallsPerRun: 100000, naming the ceiling, and writes nothing", async () => {
    runaway();
    const thread = await client.threads.create();
    const error = await refusal(wait("agent", thread.thread_id, { input: userTurn("Audit every order."), context: { ...MODEL, maxCallsPerRun: 100_000 } }));

    expect(error.error).toBe("InvalidContextError");
    expect(error.message).toContain(`Context field "maxCallsPerRun" is 100000, above this deployment's ceiling of ${RUN_LIMIT}`);
    expect(fake.completions()).toHaveLength(0);
    expect((await client.threads.getState<AgentState>(thread.thread_id)).values).toEqual({});
  });

  it("refuses a misspelled knob with its name", async () => {
    const thread = await client.threads.create();
    const error = await refusal(wait("agent", thread.thread_id, { input: userTurn("Overdue invoices?"), context: { model: "scripted:loop", maxIdenticalCall: 1 } }));

    expect(error.error).toBe("InvalidContextError");
    expect(error.message).toContain('Unknown context field "maxIdenticalCall"');
    expect(error.message).toContain(`This graph accepts: ${CONTEXT_FIELDS.join(", ")}.`);
    expect(CONTEXT_FIELDS).toContain("maxIdenticalCalls");
  });

  it("tightens a run's limits through its context", async () => {
    runaway();
    const thread = await client.threads.create();
    const state = await wait("agent", thread.thread_id, { input: userTurn("Audit every order."), context: { ...MODEL, maxCallsPerRun: 5 } });
    expect(state.halted).toBe(true);
    expect(toolCalls(state.messages)).toHaveLength(5);
  });

  it("aborts the tool in flight when the run is cancelled", async () => {
    fake.setScript([{ toolCalls: [{ name: "slow_export", args: { tag: "cancel" } }] }, { content: "Exported." }]);
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "probe", { input: userTurn("Export everything."), context: MODEL });
    await waitFor("the tool to start", () => existsSync(join(probeDir, "started-cancel")), 60_000);

    await client.runs.cancel(thread.thread_id, run.run_id);

    await waitFor("the tool to see its signal abort", () => existsSync(join(probeDir, "aborted-cancel")), 20_000);
    expect(existsSync(join(probeDir, "finished-cancel"))).toBe(false);
    await waitFor("the run to stop", async () => (await client.runs.get(thread.thread_id, run.run_id)).status !== "running", 20_000);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).not.toBe("success");
  });

  it("pauses on a tool's interrupt() and completes the call when resumed with Command({ resume })", async () => {
    fake.setScript((request) =>
      toolRepliesThisTurn(request.messages) === 0 ? { toolCalls: [{ name: "refund_order", args: { order_id: "ord_001_001" } }] } : { content: "Refunded." },
    );
    const thread = await client.threads.create();
    await wait("probe", thread.thread_id, { input: userTurn("Refund my first order."), context: MODEL });
    const paused = await client.threads.getState<AgentState>(thread.thread_id);
    expect(paused.next).toEqual(["tools"]);
    expect(paused.tasks.flatMap((t) => t.interrupts.map((i) => i.value))).toEqual([{ question: "Refund ord_001_001?" }]);
    expect(toolReplies(paused.values.messages)).toEqual([]);

    const done = await wait("probe", thread.thread_id, { command: { resume: "yes" }, context: MODEL });
    const [reply] = toolReplies(done.messages);
    expect(JSON.parse(String(reply?.content))).toEqual({ order_id: "ord_001_001", refunded: true });
    expect(done.messages.at(-1)?.content).toBe("Refunded.");
    expect(done.verdicts.map((v) => v.allowed)).toEqual([true]);
  });

  it("shares a caller-named session across threads, in the caller namespace, when the operator allows it", async () => {
    const name = `team-${Date.now()}`;
    const first = await wait("agent", (await client.threads.create()).thread_id, { input: userTurn("Revenue?"), context: { model: "scripted:clean", sessionId: name } });
    const second = await wait("agent", (await client.threads.create()).thread_id, { input: userTurn("And again?"), context: { model: "scripted:clean", sessionId: name } });

    expect(first.sessionId).toBe(`caller:anonymous:${name}`);
    expect(second.sessionId).toBe(first.sessionId);
    expect(Math.min(...second.verdicts.map((v) => v.step))).toBeGreaterThan(Math.max(...first.verdicts.map((v) => v.step)));
  });
});
