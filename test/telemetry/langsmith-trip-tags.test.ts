import { randomUUID } from "node:crypto";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { Command } from "@langchain/langgraph";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TRIP_TAG } from "../../nodes/trip-trace.js";
import { resetToolFixtures } from "../../tools/index.js";
import { startFakeLangSmith, type FakeLangSmith, type TracedRun } from "../support/fake-langsmith-server.js";
import { testGraph, threadedGraph, userTurn } from "../support/graph-helpers.js";
import { scriptedModel, testAgent } from "../middleware/support/agent.js";

const TRACING_ENV = ["LANGSMITH_TRACING", "LANGSMITH_ENDPOINT", "LANGSMITH_API_KEY", "LANGSMITH_PROJECT", "LANGCHAIN_CALLBACKS_BACKGROUND"] as const;
const saved = Object.fromEntries(TRACING_ENV.map((k) => [k, process.env[k]]));
let langsmith: FakeLangSmith;

beforeAll(async () => {
  langsmith = await startFakeLangSmith();
  Object.assign(process.env, {
    LANGSMITH_TRACING: "true",
    LANGSMITH_ENDPOINT: langsmith.url,
    LANGSMITH_API_KEY: "test",
    LANGSMITH_PROJECT: "guarded-agent-test",
  });
});

afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await langsmith.close();
});

beforeEach(() => resetToolFixtures());

/**
 * Every run of one trace, once the client has sent them all: callbacks
 * flushed, the client's batches sent, and the root run's end received.
 */
async function traceOf(traceId: string): Promise<TracedRun[]> {
  // Twice: the first waits for the callback queue (and batches already queued), the second for the batches it queued.
  await awaitAllCallbacks();
  await awaitAllCallbacks();
  const runs = langsmith.runs().filter((r) => r.trace_id === traceId);
  expect(runs.find((r) => r.id === traceId)?.end_time, "the root run should have ended").toBeDefined();
  return runs;
}

const tagged = (runs: TracedRun[]) => runs.filter((r) => r.tags?.includes(TRIP_TAG));

describe("LangSmith traces of tripped runs", () => {
  it("the graph: a tripped run carries a circuit_open child with the detector, steps and session; a clean run none", async () => {
    const { graph } = testGraph();
    const tripped = randomUUID();
    await graph.invoke(userTurn("How many invoices are overdue?"), { runId: tripped, context: { model: "scripted:loop" } as never, configurable: { thread_id: "ls-trip" } });
    const clean = randomUUID();
    await graph.invoke(userTurn("What was Acme Corp's revenue last year?"), { runId: clean, context: { model: "scripted:clean" } as never, configurable: { thread_id: "ls-clean" } });

    const trip = tagged(await traceOf(tripped));
    expect(trip).toHaveLength(1);
    expect(trip[0]).toMatchObject({ name: TRIP_TAG, run_type: "chain" });
    expect(trip[0]!.parent_run_id).toBeDefined();
    expect(trip[0]!.extra?.metadata).toMatchObject({
      circuit_detector: "identical_repeat",
      circuit_tool: "query_database",
      circuit_step: 3,
      circuit_steps: "1,2,3",
      circuit_scope: "run",
      circuit_session: "thread:ls-trip",
      circuit_action: "end",
    });
    expect(trip[0]!.outputs).toMatchObject({ findings: [expect.stringMatching(/called 3 times/), expect.any(String)] });

    const cleanRuns = await traceOf(clean);
    expect(cleanRuns.length).toBeGreaterThan(3);
    expect(tagged(cleanRuns)).toEqual([]);
    expect(cleanRuns.some((r) => "circuit_detector" in (r.extra?.metadata ?? {}))).toBe(false);
    expect(langsmith.paths().every((p) => p.endsWith("/runs/multipart") || p.endsWith("/runs/batch"))).toBe(true);
  });

  it('the graph with onTrip "ask": the paused run and the resumed one both carry the tag', async () => {
    const { graph } = threadedGraph();
    const config = { context: { model: "scripted:loop", onTrip: "ask" } as never, configurable: { thread_id: "ls-ask" } };
    const paused = randomUUID();
    await graph.invoke(userTurn("How many invoices are overdue?"), { ...config, runId: paused });
    const resumed = randomUUID();
    await graph.invoke(new Command({ resume: { action: "stop" } }), { ...config, runId: resumed });

    expect(tagged(await traceOf(paused)).map((r) => r.extra?.metadata?.circuit_action)).toEqual(["ask"]);
    expect(tagged(await traceOf(resumed)).map((r) => r.extra?.metadata?.circuit_action).sort()).toEqual(["ask", "end"]);
  });

  it("the createAgent middleware: a tripped run carries the tag, a clean run does not", async () => {
    const agent = testAgent({ model: scriptedModel("loop") });
    const tripped = randomUUID();
    await agent.invoke({ messages: [{ role: "user", content: "How many invoices are overdue?" }] }, { runId: tripped, configurable: { thread_id: "mw-trip" } });
    const clean = randomUUID();
    await testAgent({ model: scriptedModel("clean") }).invoke(
      { messages: [{ role: "user", content: "What was Acme Corp's revenue last year?" }] },
      { runId: clean, configurable: { thread_id: "mw-clean" } },
    );

    const trip = tagged(await traceOf(tripped));
    expect(trip).toHaveLength(1);
    expect(trip[0]!.extra?.metadata).toMatchObject({
      circuit_detector: "identical_repeat",
      circuit_tool: "query_database",
      circuit_session: "mw-trip",
      circuit_action: "end",
    });
    expect(trip[0]!.parent_run_id).toBeDefined();
    expect(tagged(await traceOf(clean))).toEqual([]);
  });

  it.each(["continue", "error"] as const)('the middleware with exitBehavior "%s": the trace says what the trip did', async (exitBehavior) => {
    const agent = testAgent({ model: scriptedModel("loop"), breaker: { exitBehavior } });
    const runId = randomUUID();
    await agent
      .invoke({ messages: [{ role: "user", content: "How many invoices are overdue?" }] }, { runId, configurable: { thread_id: `mw-${exitBehavior}` } })
      .catch((error: unknown) => {
        if (exitBehavior !== "error") throw error;
      });

    const actions = tagged(await traceOf(runId)).map((r) => String(r.extra?.metadata?.circuit_action)).sort();
    // "continue" gives the model one more turn; the looping model asks again and the run ends.
    expect(actions).toEqual(exitBehavior === "continue" ? ["continue", "end"] : ["error"]);
  });
});
