import { describe, expect, it } from "vitest";
import { evaluateTrajectory } from "../../../breaker/evaluator/evaluate.js";
import { readTrajectoryItems } from "../../../breaker/evaluator/read-input.js";
import { toTrajectory } from "../../../breaker/evaluator/to-trajectory.js";

// Recorded runs as other SDKs and agents write them: each format must yield the same calls and results as
// the chat-message form, so a loop recorded in any of them fails and a recovery passes.

const REPEATS = 4;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("OpenAI Responses API items", () => {
  const searchLoop = {
    id: "responses-loop",
    input: [
      { role: "user", content: "Find the Acme contract" },
      ...range(REPEATS).flatMap((i) => [
        { type: "reasoning", id: `rs_${i}`, summary: [] },
        { type: "function_call", id: `fc_${i}`, call_id: `call_${i}`, name: "search_docs", arguments: '{"query":"acme contract"}' },
        { type: "function_call_output", call_id: `call_${i}`, output: '{"results":[],"total":0}' },
      ]),
    ],
  };

  it("reads calls by call_id, their outputs, and the user's message", () => {
    const events = toTrajectory(searchLoop).events;
    expect(events.slice(0, 3)).toEqual([
      { type: "user", text: "Find the Acme contract" },
      { type: "model", calls: [{ id: "call_0", name: "search_docs", args: { query: "acme contract" } }] },
      { type: "result", callId: "call_0", outcome: { output: '{"results":[],"total":0}' } },
    ]);
  });

  it("fails an identical search that keeps coming back empty", async () => {
    const result = await evaluateTrajectory(searchLoop);
    expect(result.passed).toBe(false);
    expect(result.findings.map((f) => f.detector)).toContain("identical_repeat");
  });

  it("joins the parallel calls of one response (an assistant message, then function_call items) into one model turn", () => {
    const events = toTrajectory({
      input: [
        { role: "user", content: "Compare two accounts" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Looking both up." }] },
        { type: "function_call", call_id: "a", name: "query_crm", arguments: '{"company":"Acme"}' },
        { type: "function_call", call_id: "b", name: "query_crm", arguments: '{"company":"Hooli"}' },
        { type: "function_call_output", call_id: "b", output: '{"owner":"Ann"}' },
        { type: "function_call_output", call_id: "a", output: '{"owner":"Bo"}' },
      ],
    }).events;
    expect(events.filter((e) => e.type === "model")).toEqual([
      {
        type: "model",
        calls: [
          { id: "a", name: "query_crm", args: { company: "Acme" } },
          { id: "b", name: "query_crm", args: { company: "Hooli" } },
        ],
      },
    ]);
    expect(events.filter((e) => e.type === "result").map((e) => e.type === "result" && e.callId)).toEqual(["b", "a"]);
  });

  it("reads a Codex session log (JSON Lines of response_item envelopes) as one trajectory, with each line's time", () => {
    const lines = [
      { timestamp: "2026-03-01T10:00:00.000Z", type: "session_meta", payload: { id: "s1", cwd: "/repo" } },
      { timestamp: "2026-03-01T10:00:01.000Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "run the tests" }] } },
      ...range(3).flatMap((i) => [
        { timestamp: `2026-03-01T10:0${i}:10.000Z`, type: "response_item", payload: { type: "function_call", name: "shell", arguments: '{"command":["npm","test"]}', call_id: `c${i}` } },
        { timestamp: `2026-03-01T10:0${i}:20.000Z`, type: "response_item", payload: { type: "function_call_output", call_id: `c${i}`, output: '{"output":"FAIL src/a.test.ts\\nTypeError: x is undefined","metadata":{"exit_code":1}}' } },
      ]),
    ];
    const items = readTrajectoryItems(lines.map((l) => JSON.stringify(l)).join("\n"), "rollout.jsonl");
    expect(items).toHaveLength(1);
    const events = toTrajectory(items[0]!.value).events;
    expect(events.filter((e) => e.type === "model")).toHaveLength(3);
    expect(events[1]).toEqual({ type: "model", calls: [{ id: "c0", name: "shell", args: { command: ["npm", "test"] } }], at: Date.parse("2026-03-01T10:00:10.000Z") });
  });
});

describe("Gemini contents", () => {
  const turn = (q: string, response: object) => [
    { role: "model", parts: [{ functionCall: { name: "lookup_order", args: { id: q } } }] },
    { role: "user", parts: [{ functionResponse: { name: "lookup_order", response } }] },
  ];

  it("reads functionCall parts as calls and functionResponse parts as results ({error} as a failure)", () => {
    const events = toTrajectory({ contents: [{ role: "user", parts: [{ text: "Where is ORD-42?" }] }, ...turn("ORD-42", { error: "order not found" })] }).events;
    expect(events).toEqual([
      { type: "user", text: "Where is ORD-42?" },
      { type: "model", calls: [{ name: "lookup_order", args: { id: "ORD-42" } }] },
      { type: "result", outcome: { error: "order not found" } },
    ]);
  });

  it("fails the same missing order asked for in spellings of one id, and passes a batch over distinct orders", async () => {
    const loop = { contents: ["ORD-42", "ord_42", "ORD42", "ORD 0042"].flatMap((q) => turn(q, { error: "order not found" })) };
    const batch = { contents: ["ORD-41", "ORD-42", "ORD-43", "ORD-44"].flatMap((q, i) => turn(q, { output: { status: "shipped", eta: `2026-03-0${i + 1}` } })) };
    expect((await evaluateTrajectory(loop)).passed).toBe(false);
    expect((await evaluateTrajectory(batch)).passed).toBe(true);
  });
});

describe("AI SDK messages", () => {
  const call = (i: number, input: object) => ({ role: "assistant", content: [{ type: "tool-call", toolCallId: `t${i}`, toolName: "weather", input }] });
  const result = (i: number, output: object) => ({ role: "tool", content: [{ type: "tool-result", toolCallId: `t${i}`, toolName: "weather", output }] });

  it("reads tool-call and tool-result parts, a typed error output as a failure", () => {
    const events = toTrajectory({ messages: [call(0, { city: "Paris" }), result(0, { type: "error-text", value: "HTTP 503 Service Unavailable" })] }).events;
    expect(events).toEqual([
      { type: "model", calls: [{ id: "t0", name: "weather", args: { city: "Paris" } }] },
      { type: "result", callId: "t0", outcome: { error: "HTTP 503 Service Unavailable" } },
    ]);
  });

  it("passes a transient failure retried until it succeeds, and fails an identical call whose answer never changes", async () => {
    const flaky = { type: "error-text", value: "HTTP 503 Service Unavailable" };
    const sunny = { type: "json", value: { city: "Paris", forecast: "sunny" } };
    const recovers = { messages: [flaky, flaky, sunny].flatMap((out, i) => [call(i, { city: "Paris" }), result(i, out)]) };
    const repeats = { messages: range(REPEATS).flatMap((i) => [call(i, { city: "Paris" }), result(i, sunny)]) };
    expect((await evaluateTrajectory(recovers)).passed).toBe(true);
    expect((await evaluateTrajectory(repeats)).passed).toBe(false);
  });

  it("reads UI messages whose tool parts carry their own results (output-available, output-error)", () => {
    const events = toTrajectory({
      messages: [
        {
          role: "assistant",
          parts: [
            { type: "text", text: "Checking." },
            { type: "tool-weather", toolCallId: "u1", state: "output-available", input: { city: "Oslo" }, output: { forecast: "snow" } },
            { type: "tool-weather", toolCallId: "u2", state: "output-error", input: { city: "Atlantis" }, errorText: "unknown city" },
          ],
        },
      ],
    }).events;
    expect(events).toEqual([
      {
        type: "model",
        calls: [
          { id: "u1", name: "weather", args: { city: "Oslo" } },
          { id: "u2", name: "weather", args: { city: "Atlantis" } },
        ],
      },
      { type: "result", callId: "u1", outcome: { output: { forecast: "snow" } } },
      { type: "result", callId: "u2", outcome: { error: "unknown city" } },
    ]);
  });

  it("reads the older toolInvocations with their results", () => {
    const events = toTrajectory({
      messages: [{ role: "assistant", content: "", toolInvocations: [{ state: "result", toolCallId: "v1", toolName: "weather", args: { city: "Rome" }, result: "sunny" }] }],
    }).events;
    expect(events.slice(1)).toEqual([{ type: "result", callId: "v1", outcome: { output: "sunny" } }]);
  });
});

describe("LangGraph thread state", () => {
  it("reads a thread's state as the SDK returns it (values.messages) and fails a lookup repeated without news", async () => {
    const state = {
      values: {
        messages: [
          { type: "human", content: "Who owns Acme?", id: "h1" },
          ...range(REPEATS).flatMap((i) => [
            { type: "ai", content: "", id: `a${i}`, tool_calls: [{ name: "query_crm", args: { company_name: "Acme Corp" }, id: `call_${i}`, type: "tool_call" }] },
            { type: "tool", content: "No company found matching 'Acme Corp'", tool_call_id: `call_${i}`, name: "query_crm", status: "success", id: `t${i}` },
          ]),
        ],
        halted: false,
      },
      next: [],
      metadata: { thread_id: "th-1" },
    };
    expect(readTrajectoryItems(JSON.stringify([state]), "history.json")).toHaveLength(1);
    const result = await evaluateTrajectory(state);
    expect(result).toMatchObject({ passed: false, calls: REPEATS - 1 });
  });
});

describe("session logs", () => {
  it("reads a Claude Code session log: one response's blocks over several lines are one model turn, results matched by id", async () => {
    const line = (type: string, message: object, second: number) => JSON.stringify({ type, message, timestamp: `2026-03-01T10:00:${String(second).padStart(2, "0")}Z`, sessionId: "s" });
    const text = [
      line("user", { role: "user", content: "why does the build fail?" }, 0),
      line("assistant", { id: "msg_1", role: "assistant", content: [{ type: "text", text: "Reading both." }] }, 1),
      line("assistant", { id: "msg_1", role: "assistant", content: [{ type: "tool_use", id: "tu_a", name: "Read", input: { file_path: "/r/a.ts" } }] }, 1),
      line("assistant", { id: "msg_1", role: "assistant", content: [{ type: "tool_use", id: "tu_b", name: "Read", input: { file_path: "/r/b.ts" } }] }, 1),
      line("user", { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_a", content: "export const a = 1;" }] }, 2),
      line("user", { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_b", content: "export const b = 2;" }] }, 2),
    ].join("\n");
    const [item, ...rest] = readTrajectoryItems(text, "session.jsonl");
    expect(rest).toEqual([]);
    const events = toTrajectory(item!.value).events;
    expect(events.filter((e) => e.type === "model")).toEqual([
      {
        type: "model",
        calls: [
          { id: "tu_a", name: "Read", args: { file_path: "/r/a.ts" } },
          { id: "tu_b", name: "Read", args: { file_path: "/r/b.ts" } },
        ],
        at: Date.parse("2026-03-01T10:00:01Z"),
      },
    ]);
    expect(await evaluateTrajectory(item!.value)).toMatchObject({ passed: true, calls: 2, unanswered: 0 });
  });

  it("reads gemini-cli's recorded calls with their functionResponse results and error status", () => {
    const events = toTrajectory({
      messages: [
        {
          type: "gemini",
          content: "",
          toolCalls: [
            { id: "g1", name: "read_file", args: { path: "a.md" }, status: "success", result: [{ functionResponse: { id: "g1", name: "read_file", response: { output: "# A" } } }] },
            { id: "g2", name: "read_file", args: { path: "b.md" }, status: "error", resultDisplay: "File not found: b.md", result: [{ functionResponse: { id: "g2", name: "read_file", response: { error: "File not found: b.md" } } }] },
          ],
        },
      ],
    }).events;
    expect(events.slice(1)).toEqual([
      { type: "result", callId: "g1", outcome: { output: "# A" } },
      { type: "result", callId: "g2", outcome: { error: "File not found: b.md" } },
    ]);
  });
});
