import { Client, type Message } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSnapshot, Verdict } from "../../breaker/index.js";
import type { CircuitOpenRequest } from "../../nodes/circuit-open-request.js";
import { startDevServer, type DevServer } from "../support/langgraph-dev-server.js";

const GRAPH_ID = "agent";
const TOKEN = "e2e-admin-token-0123456789";
const LOOP = { model: "scripted:loop" };
const ASK = { ...LOOP, onTrip: "ask" };

interface AgentValues {
  messages: Message[];
  sessionId: string;
  halted: boolean;
  verdicts: Verdict[];
  __interrupt__?: { id: string; value: CircuitOpenRequest }[];
}

let server: DevServer | undefined;
let client: Client;

beforeAll(async () => {
  server = await startDevServer({ env: { BREAKER_ADMIN_TOKEN: TOKEN } });
  client = new Client({ apiUrl: server.url });
}, 150_000);

afterAll(async () => {
  await server?.stop();
}, 30_000);

const userTurn = (content: string) => ({ messages: [{ role: "user", content }] });

async function start(threadId: string, context: Record<string, unknown>): Promise<AgentValues> {
  return (await client.runs.wait(threadId, GRAPH_ID, { input: userTurn("How many invoices are overdue?"), context })) as unknown as AgentValues;
}

/** Resume a paused thread; the resumed run takes the same context as the one it resumes. */
async function resume(threadId: string, value: unknown, context: Record<string, unknown> = ASK): Promise<AgentValues> {
  return (await client.runs.wait(threadId, GRAPH_ID, { command: { resume: value }, context })) as unknown as AgentValues;
}

function requestOf(values: AgentValues): CircuitOpenRequest {
  expect(values.__interrupt__, "the run should be paused").toHaveLength(1);
  return values.__interrupt__![0]!.value;
}

/** Every tool call of the history has its reply, as OpenAI-style APIs require (the paused message aside). */
function unanswered(messages: Message[]): string[] {
  const replied = new Set(messages.flatMap((m) => (m.type === "tool" ? [m.tool_call_id] : [])));
  return messages.flatMap((m) => (m.type === "ai" ? (m.tool_calls ?? []).map((c) => c.id ?? "") : [])).filter((id) => !replied.has(id));
}

const ops = (path: string, init: RequestInit = {}, token: string | null = TOKEN) =>
  fetch(`${server!.url}${path}`, { ...init, headers: token ? { Authorization: `Bearer ${token}` } : {} });
const sessionPath = (sessionId: string, suffix = "") => `/breaker/sessions/${encodeURIComponent(sessionId)}${suffix}`;

describe('onTrip: "ask" through the LangGraph server and the SDK', () => {
  it("pauses at the trip; a refused resume value leaves it paused; stop then ends it", async () => {
    const thread = await client.threads.create();
    const paused = await start(thread.thread_id, ASK);
    const request = requestOf(paused);

    expect(request).toMatchObject({ type: "circuit_open", sessionId: `thread:${thread.thread_id}`, tripped: { tool: "query_database", detector: "identical_repeat" } });
    expect(request.pendingCalls).toHaveLength(1);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

    const refused = requestOf(await resume(thread.thread_id, { action: "retry" }));
    expect(refused.error).toMatchObject({ code: "INVALID_RESUME", message: expect.stringContaining('needs "action": "stop" or "continue"') });
    expect(refused.tripped).toEqual(request.tripped);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

    const stopped = await resume(thread.thread_id, { action: "stop" });
    expect(stopped.__interrupt__ ?? []).toEqual([]);
    expect(stopped.halted).toBe(true);
    expect(unanswered(stopped.messages)).toEqual([]);
    expect(stopped.messages.at(-1)?.type).toBe("ai");
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("continues with a hint in a fresh loop window, and the next loop asks again", async () => {
    const thread = await client.threads.create();
    const first = requestOf(await start(thread.thread_id, ASK));
    const second = requestOf(await resume(thread.thread_id, { action: "continue", hint: "Use the invoices table." }));
    // runs.wait answers a paused run with its interrupt only; the thread holds the values.
    const again = (await client.threads.getState(thread.thread_id)).values as unknown as AgentValues;

    const hint = again.messages.find((m) => m.type === "human" && String(m.content).includes("Use the invoices table."));
    expect(hint).toBeDefined();
    // The same loop ran again from a clean window (two calls, then the trip), on later steps of the same session.
    expect(second.tripped).toEqual({ ...first.tripped, step: first.tripped.step + 3 });
    expect(unanswered(again.messages)).toEqual(second.pendingCalls.map((c) => c.id));

    const stopped = await resume(thread.thread_id, { action: "stop" });
    expect(stopped.halted).toBe(true);
    expect(unanswered(stopped.messages)).toEqual([]);
  });
});

describe("the ops routes with BREAKER_ADMIN_TOKEN set", () => {
  it("answer 401 without a bearer token and with a wrong one", async () => {
    for (const token of [null, "e2e-admin-token-0123456789-wrong"]) {
      for (const [method, path] of [["GET", "/metrics"], ["GET", sessionPath("thread:x")], ["POST", sessionPath("thread:x", "/reset")]] as const) {
        const response = await ops(path, { method }, token);
        expect(response.status, `${method} ${path} with ${token ?? "no token"}`).toBe(401);
      }
    }
  });

  it("leave the LangGraph routes alone", async () => {
    const response = await fetch(`${server!.url}/ok`);
    expect(response.status).toBe(200);
    expect((await client.assistants.search({ graphId: GRAPH_ID })).length).toBe(1);
  });

  it("refuse a hostile session id with 400", async () => {
    const response = await ops(sessionPath("thread:a\nforged"));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "INVALID_SESSION_ID" });
  });

  it("inspect a tripped thread's session (OPEN), reset it, and the thread's next run starts CLOSED", async () => {
    const thread = await client.threads.create();
    const tripped = await start(thread.thread_id, LOOP);
    expect(tripped.halted).toBe(true);
    const sessionId = `thread:${thread.thread_id}`;

    const inspect = await ops(sessionPath(sessionId));
    expect(inspect.status).toBe(200);
    const snapshot = (await inspect.json()) as SessionSnapshot;
    expect(snapshot.circuit.state).toBe("OPEN");
    expect(snapshot.circuit.findings[0]).toMatchObject({ detector: "identical_repeat", severity: "block" });
    expect(new Set(snapshot.window.map((c) => c.tool))).toEqual(new Set(["query_database"]));
    expect(snapshot.totalCalls).toBe(tripped.verdicts.at(-1)!.step);

    const reset = await ops(sessionPath(sessionId, "/reset"), { method: "POST" });
    expect(await reset.json()).toEqual({ sessionId, existed: true, forgottenCalls: snapshot.totalCalls });
    const gone = await ops(sessionPath(sessionId));
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: "SESSION_NOT_FOUND", state: "CLOSED" });

    // "Please continue" keeps the run window: without the reset its first call would be refused at once.
    const next = (await client.runs.wait(thread.thread_id, GRAPH_ID, { input: userTurn("Please continue."), context: LOOP })) as unknown as AgentValues;
    const turn = next.messages.slice(next.messages.findLastIndex((m) => m.type === "human") + 1);
    const firstReply = turn.find((m) => m.type === "tool");
    expect(String(firstReply?.content)).not.toContain("CIRCUIT_BREAKER_TRIPPED");
    // The same loop plays out from a fresh session: steps counted from 1 again, the trip at the same step.
    expect(next.verdicts.at(-1)).toMatchObject({ state: "OPEN", step: tripped.verdicts.at(-1)!.step });
  });

  it("serve the verdict counter in Prometheus text format", async () => {
    await start((await client.threads.create()).thread_id, LOOP);
    const response = await ops("/metrics");

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^# TYPE breaker_verdicts_total counter$/m);
    expect(text).toMatch(/^breaker_verdicts_total\{[^}]*breaker_state="OPEN"[^}]*breaker_detector="identical_repeat"[^}]*breaker_tool="query_database"[^}]*\} [1-9]\d*$/m);
  });
});
