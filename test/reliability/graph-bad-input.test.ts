import { AIMessage, ToolMessage, type AIMessageFields, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../../breaker/index.js";
import { buildGraph } from "../../graphs/graph.js";
import { MAX_CONTENT_CHARS } from "../../nodes/run-tool.js";
import { EXAMPLE_TOOLS, resetToolFixtures } from "../../tools/index.js";
import {
  ReplayChatModel,
  callsTurn,
  frameOf,
  inspectSession,
  runTurn,
  textOf,
  toolMessages,
  threadSession,
  toolReplyProblems,
} from "../support/graph-helpers.js";
import { circular, throwingGetter } from "./support/hostile-values.js";
import { reportFigures } from "./support/figures.js";
import { probeTool } from "./support/probe-tools.js";

let sessions = 0;

/** Run one user turn of the guarded graph with a replayed model; returns the state, the session snapshot and the model. */
async function runReplay(
  turns: AIMessageFields[],
  options: { tools?: StructuredToolInterface[]; context?: Record<string, unknown>; env?: Record<string, string> } = {},
) {
  const store = new MemoryStore();
  const model = new ReplayChatModel(turns);
  const thread = `bad-input-${++sessions}`;
  const graph = buildGraph({ model, store, tools: options.tools ?? EXAMPLE_TOOLS, ...(options.env ? { env: options.env } : {}) });
  const { state, nodes } = await runTurn(graph, "Do the task.", { thread, ...(options.context ? { context: options.context } : {}) });
  return { state, nodes, model, snapshot: await inspectSession(store, threadSession(thread)) };
}

/**
 * Every call of every AIMessage answered exactly once, ids unique within each
 * message (a model may reuse an id of an earlier turn: the reply answers the
 * id it gave, and the breaker namespaces it by message).
 */
function expectEveryCallAnsweredOnce(messages: readonly BaseMessage[]): void {
  expect(toolReplyProblems(messages)).toEqual([]);
  const perMessage = messages.flatMap((m) => (AIMessage.isInstance(m) ? [(m.tool_calls ?? []).map((c) => c.id)] : []));
  for (const ids of perMessage) expect(new Set(ids).size).toBe(ids.length);
  const ids = perMessage.flat();
  expect(toolMessages(messages).map((m) => m.tool_call_id).sort()).toEqual([...ids].sort());
}

const CRM = { name: "query_crm", args: { company_name: "Acme Corp" } };

/** Record what a scenario measured, for docs/RELIABILITY.md section 2. */
function report(scenario: string, figures: Record<string, number>): void {
  reportFigures({ section: "graph-input", scenario, figures }, `graph bad input ${scenario}: ${JSON.stringify(figures)}`);
}

describe("the guarded graph with bad input from the model and the tools", () => {
  beforeEach(() => resetToolFixtures());

  it("answers malformed tool-call JSON with an error ToolMessage, counts it, and goes on", async () => {
    const { state, snapshot, model } = await runReplay([
      {
        content: "",
        tool_calls: [{ ...CRM, id: "ok-1", type: "tool_call" }],
        invalid_tool_calls: [
          { type: "invalid_tool_call", id: "bad-1", name: "query_crm", args: '{"company_name": "Acme', error: "Unterminated string in JSON" },
          { type: "invalid_tool_call", name: undefined, args: "not json at all", error: undefined },
        ],
      },
    ]);
    expect(state.halted).toBe(false);
    expectEveryCallAnsweredOnce(state.messages);
    const replies = toolMessages(state.messages);
    expect(replies.map((m) => m.status)).toEqual(["success", "error", "error"]);
    expect(textOf(replies[1]!)).toMatch(/not valid JSON/);
    expect(textOf(replies[2]!)).toMatch(/^Error: Unknown tool ""/);
    expect(snapshot.totalCalls).toBe(3);
    expect(snapshot.window.map((c) => c.outcome?.kind)).toEqual(["ok", "error", "error"]);
    // The run went on: the model saw the error replies and gave its answer.
    expect(model.prompts).toHaveLength(2);
    expect(state.messages.at(-1)!.content).toBe("Final answer.");
    report("malformed", { totalCalls: snapshot.totalCalls });
  });

  it("stops a model that repeats the same malformed call, like any other loop", async () => {
    const bad = { content: "", invalid_tool_calls: [{ type: "invalid_tool_call" as const, id: "b", name: "query_crm", args: "{oops", error: "bad JSON" }] };
    const { state, snapshot } = await runReplay(Array.from({ length: 30 }, () => bad));
    expect(state.halted).toBe(true);
    expectEveryCallAnsweredOnce(state.messages);
    expect(snapshot.circuit.state).toBe("OPEN");
    expect(snapshot.totalCalls).toBeLessThanOrEqual(5);
    report("malformed-repeated", { totalCalls: snapshot.totalCalls });
  });

  it("gives calls with missing or duplicate ids their own ids and replies, and counts each", async () => {
    const probe = probeTool("probe", (n) => ({ n }));
    const { state, snapshot } = await runReplay(
      [
        callsTurn(
          { name: "probe", args: { n: 1 } },
          { id: "", name: "probe", args: { n: 2 } },
          { id: "dup", name: "probe", args: { n: 3 } },
          { id: "dup", name: "probe", args: { n: 4 } },
          { id: "dup", name: "probe", args: { n: 5 } },
        ),
        // The next turn reuses an id of the previous one: a new call all the same.
        callsTurn({ id: "dup", name: "probe", args: { n: 6 } }),
      ],
      { tools: [probe.tool] },
    );
    expect(state.halted).toBe(false);
    expectEveryCallAnsweredOnce(state.messages);
    expect(probe.runs()).toBe(6);
    expect(snapshot.totalCalls).toBe(6);
    expect(toolMessages(state.messages).map((m) => JSON.parse(textOf(m)).n)).toEqual([1, 2, 3, 4, 5, 6]);
    report("ids", { runs: probe.runs(), totalCalls: snapshot.totalCalls });
  });

  it("still stops a runaway model that reuses one tool_call id on every turn", async () => {
    const failing = probeTool("fetch_report", () => {
      throw new Error("report service unavailable");
    });
    const turns = Array.from({ length: 30 }, () => callsTurn({ id: "call_0", name: "fetch_report", args: { n: 1 } }));
    const maxIdenticalCalls = 3;
    const { state, snapshot } = await runReplay(turns, { tools: [failing.tool], env: { BREAKER_MAX_IDENTICAL_CALLS: String(maxIdenticalCalls) } });
    expect(state.halted).toBe(true);
    expectEveryCallAnsweredOnce(state.messages);
    // The deployment allows 3 identical calls: the fourth is refused, so the tool ran three times.
    expect(failing.runs()).toBe(3);
    expect(snapshot.totalCalls).toBe(4);
    expect(snapshot.circuit.state).toBe("OPEN");
    report("reused-id", { maxIdenticalCalls, runs: failing.runs(), totalCalls: snapshot.totalCalls });
  });

  it("answers 100 parallel calls in one message exactly once each, refusing the batch past the rate limit", async () => {
    const probe = probeTool("probe", (n) => ({ n }));
    const hundred = callsTurn(...Array.from({ length: 100 }, (_, n) => ({ id: `p${n}`, name: "probe", args: { n } })));
    const maxCallsPerWindow = 30;
    const { state, snapshot } = await runReplay([hundred], { tools: [probe.tool], context: { maxCallsPerWindow } });
    expect(state.halted).toBe(true);
    expectEveryCallAnsweredOnce(state.messages);
    const replies = toolMessages(state.messages);
    expect(replies).toHaveLength(100);
    expect(replies.every((m) => m.status === "error" && frameOf(m).error === "CIRCUIT_BREAKER_TRIPPED")).toBe(true);
    // One refusal refuses the batch: nothing ran, yet every call was recorded.
    expect(probe.runs()).toBe(0);
    expect(snapshot.totalCalls).toBe(100);
    expect(snapshot.circuit.findings.map((f) => f.detector)).toContain("call_rate");
    report("parallel-refused", { calls: replies.length, maxCallsPerWindow, runs: probe.runs(), totalCalls: snapshot.totalCalls });
  });

  it("runs 100 parallel calls in one message when the limits allow them, recording every outcome", async () => {
    const probe = probeTool("probe", (n) => ({ n }));
    const hundred = callsTurn(...Array.from({ length: 100 }, (_, n) => ({ id: `p${n}`, name: "probe", args: { n } })));
    const { state, snapshot } = await runReplay([hundred], {
      tools: [probe.tool],
      // Limits this high are the operator's to set; a run's context may only tighten them.
      env: { BREAKER_MAX_CALLS_PER_WINDOW: "1000", BREAKER_MAX_CALLS_PER_RUN: "1000" },
    });
    expect(state.halted).toBe(false);
    expectEveryCallAnsweredOnce(state.messages);
    expect(toolMessages(state.messages).every((m) => m.status === "success")).toBe(true);
    expect(probe.runs()).toBe(100);
    expect(snapshot.totalCalls).toBe(100);
    const ok = snapshot.window.filter((c) => c.outcome?.kind === "ok").length;
    expect(ok).toBe(100);
    report("parallel-allowed", { calls: toolMessages(state.messages).length, runs: probe.runs(), ok });
  });

  it("handles content-block arrays in model messages, in a clean run and in a tripped one", async () => {
    const blocks = [
      { type: "text", text: "Let me look that up." },
      { type: "text", text: "" },
    ];
    const clean = await runReplay([{ ...callsTurn(CRM), content: blocks }], {});
    expect(clean.state.halted).toBe(false);
    expectEveryCallAnsweredOnce(clean.state.messages);
    expect(clean.snapshot.totalCalls).toBe(1);

    const looping = probeTool("list_blocks", () => [{ type: "text", text: "same block" }]);
    const turns = Array.from({ length: 20 }, () => ({ ...callsTurn({ name: "list_blocks", args: { n: 1 } }), content: blocks }));
    const tripped = await runReplay(turns, { tools: [looping.tool] });
    expect(tripped.state.halted).toBe(true);
    expectEveryCallAnsweredOnce(tripped.state.messages);
    const answer = tripped.state.messages.at(-1)!;
    expect(AIMessage.isInstance(answer) && typeof answer.content === "string").toBe(true);
    expect(textOf(answer)).toContain("same block");
  });

  it("turns tool outputs JSON cannot serialize into text, records their outcomes, and goes on", async () => {
    const outputs: [string, () => unknown][] = [
      ["big_int", () => ({ total: 12345678901234567890n })],
      ["circular", () => circular()],
      ["throwing_getter", () => throwingGetter()],
      ["nothing", () => undefined],
      ["symbol", () => ({ tag: Symbol("x"), fn: () => 1 })],
      ["huge", () => "y".repeat(MAX_CONTENT_CHARS * 3)],
      ["throws_bigint", () => {
        throw 42n;
      }],
      ["throws_circular", () => {
        throw circular();
      }],
    ];
    const probes = outputs.map(([name, produce]) => probeTool(name, () => produce()));
    const { state, snapshot } = await runReplay([callsTurn(...outputs.map(([name], i) => ({ id: `u${i}`, name, args: {} })))], {
      tools: probes.map((p) => p.tool),
    });
    expect(state.halted).toBe(false);
    expectEveryCallAnsweredOnce(state.messages);
    expect(probes.every((p) => p.runs() === 1)).toBe(true);
    const replies = new Map(toolMessages(state.messages).map((m) => [m.name, m]));
    for (const reply of replies.values()) expect(typeof reply.content).toBe("string");
    expect(textOf(replies.get("big_int")!)).toContain("12345678901234567890");
    expect(textOf(replies.get("circular")!)).toContain("[Circular]");
    expect(textOf(replies.get("huge")!).length).toBeLessThan(MAX_CONTENT_CHARS + 100);
    expect([replies.get("throws_bigint")!.status, replies.get("throws_circular")!.status]).toEqual(["error", "error"]);
    expect(snapshot.totalCalls).toBe(outputs.length);
    expect(snapshot.window.every((c) => c.outcome !== undefined)).toBe(true);
    expect(state.messages.at(-1)!.content).toBe("Final answer.");
    expect(state.messages.filter((m) => ToolMessage.isInstance(m))).toHaveLength(outputs.length);
    report("unserializable", {
      hugeChars: MAX_CONTENT_CHARS * 3,
      cutAt: MAX_CONTENT_CHARS,
      totalCalls: snapshot.totalCalls,
      outcomes: snapshot.window.filter((c) => c.outcome !== undefined).length,
    });
  });
});
