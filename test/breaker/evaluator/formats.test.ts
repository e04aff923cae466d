import { describe, expect, it } from "vitest";
import { BreakerError } from "../../../breaker/errors.js";
import { evaluateTrajectory, replayStart, SYNTHETIC_TURN_MS } from "../../../breaker/evaluator/evaluate.js";
import { toTrajectory } from "../../../breaker/evaluator/to-trajectory.js";
import type { ReplayEvent } from "../../../breaker/evaluator/trajectory.js";
import { summarizeOutcome } from "../../../breaker/outcome.js";

const EMPTY = '{"results":[],"total":0}';

function openaiCall(id: string, name: string, args: string) {
  return { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: args } }] };
}

describe("reading trajectories", () => {
  it("reads OpenAI chat messages: JSON-string arguments, tool results by tool_call_id, usage", () => {
    const t = toTrajectory({
      id: "o1",
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
        { ...openaiCall("c1", "kb_search", '{"query":"sso","offset":0}'), usage: { prompt_tokens: 900, completion_tokens: 30 }, model: "gpt-4o" },
        { role: "tool", tool_call_id: "c1", content: EMPTY, extra_field: "ignored" },
      ],
    });
    expect(t.id).toBe("o1");
    expect(t.events).toEqual([
      { type: "user", text: "hi" },
      { type: "model", calls: [{ id: "c1", name: "kb_search", args: { query: "sso", offset: 0 } }], usage: { inputTokens: 900, outputTokens: 30, model: "gpt-4o" } },
      { type: "result", callId: "c1", outcome: { output: EMPTY } },
    ]);
  });

  it("keeps malformed arguments as the raw string", () => {
    const t = toTrajectory({ messages: [openaiCall("c1", "query_crm", '{"company_name": "Hooli"')] });
    expect(t.events[0]).toMatchObject({ calls: [{ name: "query_crm", args: '{"company_name": "Hooli"' }] });
  });

  it("reads LangChain's serialized constructor form with usage_metadata and error status", () => {
    const ctor = (cls: string, kwargs: object) => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs });
    const t = toTrajectory({
      messages: [
        ctor("HumanMessage", { content: "go" }),
        ctor("AIMessage", {
          content: "",
          tool_calls: [{ name: "get_financials", args: { company_id: "acc_004" }, id: "t1", type: "tool_call" }],
          usage_metadata: { input_tokens: 1200, output_tokens: 40, total_tokens: 1240 },
          response_metadata: { model_name: "gpt-4o-mini" },
        }),
        ctor("ToolMessage", { content: "no filing", tool_call_id: "t1", status: "error" }),
      ],
    });
    expect(t.events).toEqual([
      { type: "user", text: "go" },
      { type: "model", calls: [{ id: "t1", name: "get_financials", args: { company_id: "acc_004" } }], usage: { inputTokens: 1200, outputTokens: 40, model: "gpt-4o-mini" } },
      { type: "result", callId: "t1", outcome: { error: "no filing" } },
    ]);
  });

  it("reads LangChain's plain {type} and stored {type, data} forms", () => {
    const plain = toTrajectory({
      messages: [
        { type: "human", content: "go" },
        { type: "ai", content: "", tool_calls: [{ name: "t", args: { a: 1 }, id: "p1" }] },
        { type: "tool", tool_call_id: "p1", content: "fine" },
      ],
    });
    const stored = toTrajectory({
      messages: [
        { type: "human", data: { content: "go" } },
        { type: "ai", data: { content: "", tool_calls: [{ name: "t", args: { a: 1 }, id: "p1" }], response_metadata: { tokenUsage: { promptTokens: 5, completionTokens: 2 } } } },
        { type: "tool", data: { tool_call_id: "p1", content: "fine" } },
      ],
    });
    expect(plain.events.map((e) => e.type)).toEqual(["user", "model", "result"]);
    expect(stored.events).toEqual([
      { type: "user", text: "go" },
      { type: "model", calls: [{ id: "p1", name: "t", args: { a: 1 } }], usage: { inputTokens: 5, outputTokens: 2 } },
      { type: "result", callId: "p1", outcome: { output: "fine" } },
    ]);
  });

  it("reads toolCalls entries with output or error, and user entries as new turns", () => {
    const t = toTrajectory({
      toolCalls: [
        { name: "a", args: '{"x":1}', output: "ok" },
        { role: "user", content: "again" },
        { name: "b", args: { y: 2 }, error: "boom" },
        { name: "c", args: { z: 3 } },
      ],
    });
    expect(t.events).toEqual([
      { type: "model", calls: [{ id: "call-1", name: "a", args: { x: 1 } }] },
      { type: "result", callId: "call-1", outcome: { output: "ok" } },
      { type: "user", text: "again" },
      { type: "model", calls: [{ id: "call-3", name: "b", args: { y: 2 } }] },
      { type: "result", callId: "call-3", outcome: { error: "boom" } },
      { type: "model", calls: [{ id: "call-4", name: "c", args: { z: 3 } }] },
    ]);
  });

  it("reads a call entry's result under the names other logs give it, and a failed status as an error", () => {
    const t = toTrajectory({
      toolCalls: [
        { name: "search", args: { q: "a" }, observation: "3 hits" },
        { name: "search", args: { q: "b" }, result: { hits: [] } },
        { name: "search", args: { q: "c" }, response: "timeout", status: "failed" },
        { name: "search", args: { q: "d" }, output: "Permission denied", is_error: true },
      ],
    });
    expect(t.events.filter((e) => e.type === "result").map((e) => e.type === "result" && e.outcome)).toEqual([
      { output: "3 hits" },
      { output: { hits: [] } },
      { error: "timeout" },
      { error: "Permission denied" },
    ]);
  });

  it("reads a call's time under the names logs give it", () => {
    const at = "2026-03-01T10:00:00Z";
    const times = ["timestamp", "start_time", "startTime", "started_at", "ts"].map((key) => toTrajectory({ toolCalls: [{ name: "a", args: {}, [key]: at }] }).events[0]);
    for (const event of times) expect(event).toMatchObject({ type: "model", at: Date.parse(at) });
    expect(toTrajectory({ toolCalls: [{ name: "a", args: {}, ts: 1_772_359_200 }] }).events[0]).toMatchObject({ at: 1_772_359_200_000 });
  });

  it("reads error text in tool content as a failure when the format has no error flag, as the runtime does", () => {
    const t = toTrajectory({ messages: [openaiCall("c1", "t", "{}"), { role: "tool", tool_call_id: "c1", content: "Error: timed out" }] });
    const result = t.events[1] as Extract<ReplayEvent, { type: "result" }>;
    expect(result).toEqual({ type: "result", callId: "c1", outcome: { output: "Error: timed out" } });
    expect(summarizeOutcome(result.outcome)).toMatchObject({ kind: "error", transient: true });
  });

  it("rejects a shape that is not a trajectory with a typed error", () => {
    expect(() => toTrajectory({ id: "x", steps: [] })).toThrow(BreakerError);
    expect(() => toTrajectory(42)).toThrow(/must be an object/);
    expect(() => toTrajectory({ toolCalls: [{ args: {} }] })).toThrow(/toolCalls\[0\] has no tool name/);
  });
});

describe("evaluateTrajectory", () => {
  it("passes a clean trajectory with score 1 and no findings", async () => {
    const result = await evaluateTrajectory({ toolCalls: [{ name: "a", args: {}, output: "x" }, { name: "b", args: {}, output: "y" }] });
    expect(result).toMatchObject({ passed: true, score: 1, trippedAtStep: null, findings: [], calls: 2 });
  });

  it("fails at the step the breaker opens, with score 0 and the blocking finding", async () => {
    const result = await evaluateTrajectory({ id: "t", toolCalls: Array.from({ length: 6 }, () => ({ name: "a", args: { q: 1 }, output: "same" })) });
    expect(result).toMatchObject({ id: "t", passed: false, score: 0, trippedAtStep: 4, calls: 4 });
    // The first answer is news; the next two repeat it, so the fourth call is the third with nothing new.
    expect(result.findings).toContainEqual(expect.objectContaining({ detector: "no_progress", severity: "block", steps: [2, 3, 4] }));
  });

  it("scores a passing run by how close its worst warning came to a block", async () => {
    const result = await evaluateTrajectory({ toolCalls: [{ name: "a", args: {}, output: "" }, { name: "a", args: {}, output: "hit" }] });
    expect(result.passed).toBe(true);
    expect(result.score).toBeCloseTo(1 - 2 / 3, 3);
  });

  it("starts a new run at each user message", async () => {
    const turn = (n: number) => [{ role: "user", content: `try ${n}` }, ...Array.from({ length: 3 }, () => ({ name: "a", args: {}, output: "same" }))];
    const result = await evaluateTrajectory({ toolCalls: [...turn(1), ...turn(2), ...turn(3)] });
    expect(result.passed).toBe(true);
  });

  it("reads the same message sent after the model's answer as a new turn, and before it as a harness re-sending it", async () => {
    // RAGFlow's recorded shape: the user asks the same question four times, one retrieval and an answer each time.
    const question = { role: "user", content: "Please list the limitation related to the system BSOD." };
    const retrieval = { name: "retrieval", args: { kb_ids: ["2131"], question: question.content }, output: "8 chunks retrieved" };
    const answered = Array.from({ length: 4 }, () => [question, retrieval, { role: "assistant", content: "Here are the limitations: ..." }]).flat();
    expect((await evaluateTrajectory({ toolCalls: answered })).passed).toBe(true);
    // Without an answer in between, the same message is a harness nudging the same run on.
    const resent = Array.from({ length: 4 }, () => [question, retrieval]).flat();
    expect((await evaluateTrajectory({ toolCalls: resent })).passed).toBe(false);
    // System notes and results whose call was not logged carry no call: skipped, not an error.
    const noted = [question, { role: "system", content: "Mission plan: ..." }, retrieval, { role: "tool", content: "Unknown tool: todo_write" }];
    expect((await evaluateTrajectory({ toolCalls: noted })).passed).toBe(true);
  });

  it("checks every call of a model turn before any result, as the router does", async () => {
    const calls = Array.from({ length: 4 }, (_, i) => ({ id: `p${i}`, type: "function", function: { name: "q", arguments: '{"a":1}' } }));
    const results = calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: "different-" + c.id }));
    const result = await evaluateTrajectory({ messages: [{ role: "assistant", tool_calls: calls }, ...results] });
    // Four identical calls in one message: the first two still running when the third is checked.
    expect(result).toMatchObject({ passed: false, trippedAtStep: 3 });
  });

  it("keeps reused call ids apart (some models send call_0 every turn)", async () => {
    const turn = (out: string) => [openaiCall("call_0", "poll", '{"job":"j"}'), { role: "tool", tool_call_id: "call_0", content: out }];
    const result = await evaluateTrajectory({ messages: ["queued", "running 10%", "running 50%", "running 90%", "done"].flatMap(turn) });
    expect(result).toMatchObject({ passed: true, calls: 5 });
  });

  it("bills token usage to the session and trips the budget", async () => {
    const turn = (i: number) => [
      { ...openaiCall(`c${i}`, "lookup", JSON.stringify({ id: `x${i}` })), usage: { prompt_tokens: 150_000, completion_tokens: 100 } },
      { role: "tool", tool_call_id: `c${i}`, content: `row ${i}` },
    ];
    const result = await evaluateTrajectory({ messages: [1, 2, 3, 4].flatMap(turn) });
    expect(result).toMatchObject({ passed: false, trippedAtStep: 4 });
    expect(result.findings.map((f) => `${f.detector}:${f.severity}`)).toContain("token_budget:block");
  });

  it("applies natures a trajectory declares unless the policy declares its own", async () => {
    // A name that says nothing about side effects: only the declared nature makes the second call harm.
    const sync = { name: "sync_contact", args: { id: "c_1", email: "a@example.com" }, output: '{"status":"ok"}' };
    expect((await evaluateTrajectory({ natures: { sync_contact: "side_effecting" }, toolCalls: [sync, sync] })).passed).toBe(false);
    expect((await evaluateTrajectory({ toolCalls: [sync, sync] })).passed).toBe(true);
    const policy = { tools: { sync_contact: { nature: "read_only" as const } } };
    expect((await evaluateTrajectory({ natures: { sync_contact: "side_effecting" }, toolCalls: [sync, sync] }, policy)).passed).toBe(true);
    // A declared nature wins over the one a name suggests.
    const mail = { name: "send_email", args: { to: "a@example.com", subject: "s", body: "b" }, output: '{"status":"sent"}' };
    expect((await evaluateTrajectory({ toolCalls: [mail, mail] })).passed).toBe(false);
    expect((await evaluateTrajectory({ natures: { send_email: "read_only" }, toolCalls: [mail, mail] })).passed).toBe(true);
  });

  it("follows message timestamps for the sliding window", async () => {
    const burst = (start: number) =>
      Array.from({ length: 10 }, (_, i) => ({ ...openaiCall(`b${start}-${i}`, "get", JSON.stringify({ id: `${start}-${i}` })), timestamp: new Date(Date.UTC(2024, 5, 1) + start + i * 100).toISOString() }));
    const spaced = await evaluateTrajectory({ messages: [0, 1, 2, 3, 4].flatMap((i) => burst(i * 120_000)) });
    const packed = await evaluateTrajectory({ messages: [0, 1, 2, 3, 4].flatMap((i) => burst(i * 1_000)) });
    expect(spaced.passed).toBe(true);
    expect(packed).toMatchObject({ passed: false, trippedAtStep: 50 });
  });

  it("keeps a recording that dates only some of its calls in one stretch of time", async () => {
    // An issue report quoting one timestamp: the undated failures before it belong to the same minute, not to 2025.
    const send = { name: "chat", args: { session: "s-1", text: "continue" }, error: "400 Bad Request: invalid tool_use block in history" };
    const trajectory = { toolCalls: [send, send, { ...send, timestamp: "2026-03-04T10:00:00Z" }, { name: send.name, args: send.args }] };
    expect(await evaluateTrajectory(trajectory)).toMatchObject({ passed: false, trippedAtStep: 3 });
    const events = toTrajectory(trajectory).events;
    expect(replayStart(events)).toBe(Date.parse("2026-03-04T10:00:00Z") - 3 * SYNTHETIC_TURN_MS);
    expect(replayStart(toTrajectory({ toolCalls: [send] }).events)).toBe(Date.UTC(2025, 0, 1));
  });
});
