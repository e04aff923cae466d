import { Client, type Message } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Verdict } from "../../breaker/index.js";
import { CONTEXT_FIELDS } from "../../graphs/context.js";
import { LIMIT_KNOBS } from "../../graphs/limit-knobs.js";
import { contextFieldDocs } from "../../scripts/context-table.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { startDevServer, type DevServer } from "../support/langgraph-dev-server.js";
import { loopingSqlScript, plainAnswerScript } from "../support/openai-scripts.js";

const GRAPH_ID = "agent";
const API_KEY = "sk-fake-server";

interface AgentState {
  messages: Message[];
  sessionId: string;
  halted: boolean;
  verdicts: Verdict[];
}

let fake: FakeOpenAIServer | undefined;
let server: DevServer | undefined;
let client: Client;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
  server = await startDevServer({ env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: fake.baseURL } });
  client = new Client({ apiUrl: server.url });
}, 150_000);

// Runs whether the tests passed or not; stop() signals the server's whole process group.
afterAll(async () => {
  await server?.stop();
  await fake?.close();
}, 30_000);

const userTurn = (content: string) => ({ messages: [{ role: "user", content }] });

/** Run one user turn to its end and return the thread's values. */
async function wait(threadId: string | null, content: string, context: Record<string, unknown>): Promise<AgentState> {
  const input = userTurn(content);
  const values = threadId === null
    ? await client.runs.wait(null, GRAPH_ID, { input, context })
    : await client.runs.wait(threadId, GRAPH_ID, { input, context });
  return values as unknown as AgentState;
}

function toolCallIds(messages: Message[]): string[] {
  return messages.flatMap((m) => (m.type === "ai" ? (m.tool_calls ?? []).map((c) => c.id ?? "") : []));
}

function toolReplyIds(messages: Message[]): string[] {
  return messages.flatMap((m) => (m.type === "tool" ? [m.tool_call_id] : []));
}

const tripOf = (state: AgentState): Verdict | undefined => state.verdicts.find((v) => !v.allowed);

describe("the guarded agent on the LangGraph dev server", () => {
  it("keeps the ops routes off (404) when the operator set no BREAKER_ADMIN_TOKEN", async () => {
    for (const [method, path] of [["GET", "/metrics"], ["GET", "/breaker/sessions/thread%3Ax"], ["POST", "/breaker/sessions/thread%3Ax/reset"]] as const) {
      const response = await fetch(`${server!.url}${path}`, { method, headers: { Authorization: "Bearer any-token-at-all-0123" } });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
  });

  it("publishes the graph as an assistant", async () => {
    const found = await client.assistants.search({ graphId: GRAPH_ID });

    expect(found).toHaveLength(1);
    expect(found[0]?.graph_id).toBe(GRAPH_ID);
  });

  it("draws agent, tools, circuit_fallback and circuit_review with the router's conditional edges", async () => {
    const drawn = await client.assistants.getGraph(GRAPH_ID);
    const edges = drawn.edges.map((e) => `${e.source}->${e.target}${e.conditional ? " (conditional)" : ""}`);

    expect(drawn.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["agent", "tools", "circuit_fallback", "circuit_review"]));
    expect(edges.sort()).toEqual(
      [
        "__start__->agent",
        "agent->tools (conditional)",
        "agent->circuit_fallback (conditional)",
        "agent->__end__ (conditional)",
        "agent->circuit_review (conditional)",
        "circuit_review->agent (conditional)",
        "circuit_review->circuit_fallback (conditional)",
        "tools->agent",
        "circuit_fallback->__end__",
      ].sort(),
    );
  });

  it("serves state, input and context schemas: every context field of the declaration, with its type and description", async () => {
    const schemas = await client.assistants.getSchemas(GRAPH_ID);
    const props = (s: unknown) => Object.keys((s as { properties?: object } | null)?.properties ?? {});

    expect(props(schemas.state_schema)).toEqual(expect.arrayContaining(["messages", "sessionId", "halted", "verdicts"]));
    expect(props(schemas.input_schema)).toContain("messages");
    const context = (schemas.context_schema as { properties: Record<string, { type?: string; description?: string }> }).properties;
    expect(Object.keys(context)).toEqual(CONTEXT_FIELDS);
    for (const knob of LIMIT_KNOBS) expect(context[knob]?.type, knob).toBe("number");
    const docs = await contextFieldDocs();
    for (const field of CONTEXT_FIELDS) expect(context[field]?.description?.replace(/\s+/g, " "), field).toBe(docs[field]);
    // Annotation.Root has no runtime JSON schema, so the server parses the TypeScript source on first call:
    // past 90 s on a loaded two-core machine.
  }, 240_000);

  it("halts a looping run with every tool call answered, and a second run on the thread proceeds", async () => {
    const thread = await client.threads.create();
    const first = await wait(thread.thread_id, "How many invoices are overdue?", { model: "scripted:loop" });

    expect(first.halted).toBe(true);
    expect(first.sessionId).toBe(`thread:${thread.thread_id}`);
    const trip = tripOf(first);
    expect(trip).toMatchObject({ tool: "query_database", state: "OPEN" });
    // maxIdenticalCalls defaults to 3: the fourth identical call is refused at the latest.
    expect(trip?.step).toBeLessThanOrEqual(4);
    const calls = toolCallIds(first.messages);
    expect(calls).toHaveLength(trip?.step ?? -1);
    expect(toolReplyIds(first.messages).sort()).toEqual([...calls].sort());
    const last = first.messages.at(-1);
    expect(last?.type).toBe("ai");
    expect(last?.type === "ai" ? last.tool_calls ?? [] : ["not an ai message"]).toEqual([]);

    const second = await wait(thread.thread_id, "What was Acme Corp's revenue last year?", { model: "scripted:clean" });

    expect(second.halted).toBe(false);
    expect(second.verdicts.every((v) => v.allowed)).toBe(true);
    // Session-wide step numbers continue: the new run is counted in the same session, in a fresh loop window.
    expect(Math.min(...second.verdicts.map((v) => v.step))).toBeGreaterThan(calls.length);
    const all = toolCallIds(second.messages);
    expect(toolReplyIds(second.messages).sort()).toEqual([...all].sort());
    expect(second.messages.at(-1)?.type).toBe("ai");
  });

  it("applies a per-run context override: a tighter identical-call limit trips earlier", async () => {
    const ask = "How many invoices are overdue?";
    const loose = await wait((await client.threads.create()).thread_id, ask, { model: "scripted:loop" });
    const tight = await wait((await client.threads.create()).thread_id, ask, { model: "scripted:loop", maxIdenticalCalls: 1 });

    expect(tight.halted).toBe(true);
    // One identical call allowed: the second one is refused, by the identical-repeat detector.
    expect(tripOf(tight)?.step).toBe(2);
    expect(tripOf(tight)?.findings).toContainEqual(expect.objectContaining({ detector: "identical_repeat", severity: "block" }));
    expect(tripOf(loose)?.step).toBeGreaterThan(2);
  });

  it("streams the trip as it happens in updates and custom modes", async () => {
    const thread = await client.threads.create();
    const events: { event: string; data: unknown }[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, GRAPH_ID, {
      input: userTurn("What is the account owner for Acme Corporation?"),
      context: { model: "scripted:stutter" },
      streamMode: ["updates", "custom"],
    })) {
      events.push({ event: chunk.event, data: chunk.data });
    }

    const updates = events.filter((e) => e.event === "updates").map((e) => e.data as Record<string, Partial<AgentState>>);
    const nodes = updates.map((u) => Object.keys(u)[0]);
    // One event per step, in order: the trip arrives as its own update, after the steps that led to it.
    expect(nodes.at(-1)).toBe("circuit_fallback");
    expect(nodes.slice(0, 3)).toEqual(["agent", "tools", "agent"]);
    expect(updates.at(-1)?.circuit_fallback?.halted).toBe(true);
    // The verdicts come with the model's message, in the agent step that asked for the refused calls.
    const refusing = updates.at(-2)?.agent;
    expect(refusing?.verdicts?.some((v) => v.state === "OPEN" && v.findings.length > 0)).toBe(true);

    const custom = events.filter((e) => e.event === "custom").map((e) => e.data as { type: string; verdicts: Verdict[]; halted?: boolean });
    expect(custom.length).toBeGreaterThan(1);
    expect(custom.every((c) => c.type === "breaker_verdict")).toBe(true);
    expect(custom.at(-1)?.halted).toBe(true);
    expect(custom.at(-1)?.verdicts.some((v) => !v.allowed)).toBe(true);
  });

  it("gives each run without a thread a session of its own", async () => {
    const a = await wait(null, "How many invoices are overdue?", { model: "scripted:loop" });
    const b = await wait(null, "How many invoices are overdue?", { model: "scripted:loop" });

    expect(a.sessionId).not.toBe("");
    expect(b.sessionId).not.toBe(a.sessionId);
    // Shared counts would make the second run trip on a later step or at once.
    expect(tripOf(b)?.step).toBe(tripOf(a)?.step);
  });

  it("refuses a caller-named session unless the operator allows them (test/e2e/deployment-limits.test.ts runs one that does)", async () => {
    const thread = await client.threads.create();
    const run = wait(thread.thread_id, "What was Acme Corp's revenue last year?", { model: "scripted:clean", sessionId: thread.thread_id });
    // The SDK throws the server's error as JSON text.
    await expect(run).rejects.toThrow(/InvalidContextError.*sessionId.* is not accepted by this deployment.*BREAKER_CALLER_SESSIONS=true/);
  });

  it("runs ChatOpenAI (OPENAI_BASE_URL) through the server: the trip, then a valid next turn", async () => {
    fake!.setScript(loopingSqlScript);
    fake!.requests.length = 0;
    const thread = await client.threads.create();
    const looped = await wait(thread.thread_id, "How many invoices are overdue?", { model: "openai:gpt-4o-mini" });

    expect(looped.halted).toBe(true);
    const turns = tripOf(looped)?.step ?? -1;
    expect(turns).toBeLessThanOrEqual(4);
    expect(fake!.requests.map((r) => [r.status, r.authorization])).toEqual(Array(turns).fill([200, `Bearer ${API_KEY}`]));

    fake!.setScript(plainAnswerScript("Please name the exact table."));
    fake!.requests.length = 0;
    const next = await wait(thread.thread_id, "Which table should I use?", { model: "openai:gpt-4o-mini" });

    // A 400 here would mean the halted thread kept an unanswered tool call.
    expect(fake!.requests.map((r) => r.status)).toEqual([200]);
    expect(next.halted).toBe(false);
    expect(next.messages.at(-1)?.content).toBe("Please name the exact table.");
  });
});
