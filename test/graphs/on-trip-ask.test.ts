import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { InvalidContextError, parseContext } from "../../graphs/context.js";
import type { CircuitOpenRequest } from "../../nodes/circuit-open-request.js";
import { resetToolFixtures } from "../../tools/index.js";
import {
  callsTurn,
  inspectSession,
  lastTurn,
  ReplayChatModel,
  textOf,
  threadSession,
  threadedGraph,
  toolReplyProblems,
  trajectory,
  userTurn,
} from "../support/graph-helpers.js";

const SQL = "SELECT * FROM overdue_invoices";
const loopForever = Array.from({ length: 40 }, () => callsTurn({ name: "query_database", args: { sql: SQL } }));

interface Paused {
  messages: BaseMessage[];
  halted: boolean;
  __interrupt__?: { id: string; value: CircuitOpenRequest }[];
}

/** A threaded graph over a model that repeats one failing query forever, and how to run and resume it. */
function askingGraph(context: Record<string, unknown> = {}, turns = loopForever) {
  const model = new ReplayChatModel(turns);
  const { graph, store } = threadedGraph({ model });
  const thread = `ask-${Math.random().toString(36).slice(2)}`;
  const config = { configurable: { thread_id: thread }, context: { onTrip: "ask", ...context } as never };
  const start = async (content = "How many invoices are overdue?") => (await graph.invoke(userTurn(content), config)) as unknown as Paused;
  const resume = async (value: unknown) => (await graph.invoke(new Command({ resume: value }), config)) as unknown as Paused;
  const request = (paused: Paused): CircuitOpenRequest => {
    expect(paused.__interrupt__, "the run should be paused").toHaveLength(1);
    return paused.__interrupt__![0]!.value;
  };
  return { graph, store, model, thread, config, start, resume, request };
}

describe('onTrip: "ask"', () => {
  beforeEach(() => resetToolFixtures());

  it("pauses at the trip with what tripped, why, on which steps, and the pending calls", async () => {
    const run = askingGraph();
    const paused = await run.start();
    const request = run.request(paused);

    expect(request.type).toBe("circuit_open");
    expect(request.sessionId).toBe(threadSession(run.thread));
    expect(request.tripped).toEqual({ tool: "query_database", step: 3, detector: "identical_repeat" });
    expect(request.findings[0]).toMatchObject({ detector: "identical_repeat", severity: "block", scope: "run", steps: [1, 2, 3] });
    expect(request.findings[0]!.message).toMatch(/called 3 times with the same arguments/);
    const last = paused.messages.at(-1) as AIMessage;
    expect(request.pendingCalls).toEqual(last.tool_calls!.map((c) => ({ id: c.id, name: "query_database", args: { sql: SQL } })));
    // Paused: nothing answered the pending call yet, nothing ended the run.
    expect(paused.halted).toBe(false);
    expect(trajectory(paused.messages)).toEqual(["ran", "ran+advisory"]);
    const state = await run.graph.getState(run.config);
    expect(state.next).toEqual(["circuit_review"]);
    expect((await inspectSession(run.store, threadSession(run.thread))).circuit.state).toBe("OPEN");
  });

  it("masks secrets in the pending calls' arguments", async () => {
    const leaky = callsTurn({ name: "query_database", args: { sql: SQL, auth: "Bearer abcdefghijklmnop1234" } });
    const run = askingGraph({}, Array.from({ length: 5 }, () => leaky));
    const request = run.request(await run.start());

    expect(request.pendingCalls[0]!.args).toEqual({ sql: SQL, auth: "Bearer ***" });
    expect(JSON.stringify(request)).not.toContain("abcdefghijklmnop1234");
  });

  it('ends as circuit_fallback does on { action: "stop" }', async () => {
    const run = askingGraph();
    await run.start();
    const stopped = await run.resume({ action: "stop" });

    expect(stopped.__interrupt__).toBeUndefined();
    expect(stopped.halted).toBe(true);
    expect(trajectory(stopped.messages)).toEqual(["ran", "ran+advisory", "refused"]);
    expect(textOf(stopped.messages.at(-1)!)).toMatch(/^I stopped this task because the circuit breaker caught/);
    expect(toolReplyProblems(stopped.messages)).toEqual([]);
    expect((await run.graph.getState(run.config)).next).toEqual([]);
  });

  it('on { action: "continue", hint } answers the pending calls, hands the model the hint, and opens a fresh loop window', async () => {
    const run = askingGraph();
    const first = run.request(await run.start());
    const promptsBefore = run.model.prompts.length;
    const again = await run.resume({ action: "continue", hint: "Query the invoices table instead." });

    // The model was asked again, with the person's message last.
    const prompt = run.model.prompts[promptsBefore]!;
    expect(textOf(prompt.at(-1)!)).toContain("Their hint: Query the invoices table instead.");
    expect(prompt.at(-1)!.getType()).toBe("human");
    // The refused call was answered before the hint: the thread is valid for OpenAI-style APIs
    // (only the message paused at the second trip waits for its replies).
    expect(toolReplyProblems(again.messages.slice(0, -1))).toEqual([]);
    const reply = JSON.parse(textOf(again.messages.find((m) => m.getType() === "tool" && textOf(m).includes("CIRCUIT_BREAKER_TRIPPED"))!));
    expect(reply).toMatchObject({ ran: false, next: expect.stringMatching(/person reviewed this stop/) });
    // A fresh window: the same query runs twice again before the loop trips once more, on later steps.
    expect(trajectory(lastTurn(again.messages))).toEqual(["ran", "ran+advisory"]);
    const second = run.request(again);
    expect(second.tripped).toEqual({ tool: "query_database", step: first.tripped.step + 3, detector: "identical_repeat" });
    expect(second.findings[0]!.steps).toEqual([4, 5, 6]);
    const hint = again.messages.findLast((m) => m.getType() === "human")!;
    expect((await inspectSession(run.store, threadSession(run.thread))).circuit).toMatchObject({ state: "OPEN", run: hint.id });

    // And that second trip can be stopped as usual.
    const stopped = await run.resume({ action: "stop" });
    expect(stopped.halted).toBe(true);
    expect(toolReplyProblems(stopped.messages)).toEqual([]);
  });

  it("keeps session budgets across a continue: the next call over the budget trips again at once", async () => {
    const run = askingGraph({ maxCallsPerWindow: 4 });
    expect(run.request(await run.start()).tripped.detector).toBe("identical_repeat");
    const overBudget = run.request(await run.resume({ action: "continue" }));

    expect(overBudget.findings.find((f) => f.severity === "block")).toMatchObject({ scope: "session" });
    // Another continue does not lift a session budget: the first call after it is refused again.
    const paused = await run.resume({ action: "continue", hint: "Try once more." });
    const again = run.request(paused);
    expect(again.tripped.detector).toBe(overBudget.tripped.detector);
    expect(trajectory(lastTurn(paused.messages))).toEqual([]);
    expect(again.tripped.step).toBe(overBudget.tripped.step + 1);
  });

  it.each<[string, unknown, RegExp]>([
    ["an unknown action", { action: "maybe" }, /needs "action": "stop" or "continue"/],
    ["text that is not JSON", "go on", /is not JSON/],
    ["a hint that is not text", { action: "continue", hint: 5 }, /"hint" that is not text/],
    ["an unknown field", { action: "stop", force: true }, /unknown field "force"/],
    ["a number", 42, /is not an object/],
  ])("refuses %s with a clear error and stays paused until a valid answer", async (_what, value, why) => {
    const run = askingGraph();
    const first = run.request(await run.start());
    const refused = run.request(await run.resume(value));

    expect(refused.error?.code).toBe("INVALID_RESUME");
    expect(refused.error?.message).toMatch(why);
    expect(refused.error?.message).toContain('{"action":"stop"}');
    expect({ ...refused, error: undefined }).toEqual({ ...first, error: undefined });
    const state = await run.graph.getState(run.config);
    expect(state.tasks.map((t) => [t.name, t.interrupts.length])).toEqual([["circuit_review", 1]]);

    const stopped = await run.resume({ action: "stop" });
    expect(stopped.__interrupt__).toBeUndefined();
    expect(stopped.halted).toBe(true);
    expect(toolReplyProblems(stopped.messages)).toEqual([]);
  });

  it("accepts the resume value as JSON text, as a form may send it", async () => {
    const run = askingGraph();
    await run.start();
    const stopped = await run.resume('{"action":"stop"}');
    expect(stopped.halted).toBe(true);
  });

  it('leaves "end" the default: a trip ends the run without asking', async () => {
    const run = askingGraph({ onTrip: undefined });
    const ended = await run.start();
    expect(ended.__interrupt__).toBeUndefined();
    expect(ended.halted).toBe(true);
  });
});

describe("the onTrip context field", () => {
  it("accepts end and ask, blank as the default", () => {
    expect(parseContext({ onTrip: "ask" }).onTrip).toBe("ask");
    expect(parseContext({ onTrip: "" }).onTrip).toBe("end");
    expect(parseContext({}).onTrip).toBe("end");
  });

  it("refuses anything else, naming the values it accepts", () => {
    const refuse = () => parseContext({ onTrip: "pause" });
    expect(refuse).toThrow(InvalidContextError);
    expect(refuse).toThrow('Context field "onTrip" must be "end" or "ask" (got "pause").');
  });
});
