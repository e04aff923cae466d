import { randomUUID } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runContext, type AgentContext } from "../../graphs/context.js";
import { buildGraph } from "../../graphs/graph.js";
import type { Verdict } from "../../breaker/index.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { CLEAN_ANSWER, cleanCrmScript, loopingSqlScript, plainAnswerScript } from "../support/openai-scripts.js";

const API_KEY = "sk-fake-e2e";
const MODEL = "openai:gpt-4o-mini";

let fake: FakeOpenAIServer;
let graph: ReturnType<typeof buildGraph>;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
  // The model comes from the context name, as on the server: ChatOpenAI built from OPENAI_API_KEY and OPENAI_BASE_URL.
  graph = buildGraph({ env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: fake.baseURL } });
  // The LangGraph server attaches its checkpointer the same way; threads need one to keep state between turns.
  graph.checkpointer = new MemorySaver();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const runConfig = (threadId: string, context: Partial<AgentContext> = {}) => ({
  configurable: { thread_id: threadId },
  context: runContext({ model: MODEL, ...context }),
});

/** Every AI tool call id in the thread, and every tool reply's id, so a test can compare them. */
function callsAndReplies(messages: readonly BaseMessage[]): { calls: string[]; replies: string[] } {
  const calls = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id ?? "") : []));
  const replies = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id);
  return { calls, replies };
}

describe("the graph with the real ChatOpenAI client against an OpenAI-compatible server", () => {
  it("stops a looping model, answers every tool call, and the thread stays valid for the next user turn", async () => {
    const threadId = randomUUID();
    fake.setScript(loopingSqlScript);
    const first = await graph.invoke({ messages: [new HumanMessage("How many invoices are overdue?")] }, runConfig(threadId));

    expect(first.halted).toBe(true);
    const trip = (first.verdicts as Verdict[]).find((v) => !v.allowed);
    expect(trip).toMatchObject({ tool: "query_database", state: "OPEN" });
    // maxIdenticalCalls defaults to 3: the fourth identical call is refused at the latest.
    expect(trip?.step).toBeLessThanOrEqual(4);
    // One model turn per call: the model was not asked again after the trip.
    expect(fake.completions()).toHaveLength(trip?.step ?? -1);
    const { calls, replies } = callsAndReplies(first.messages);
    expect(calls).toHaveLength(trip?.step ?? -1);
    expect(new Set(replies)).toEqual(new Set(calls));
    expect(first.messages.at(-1)).toBeInstanceOf(AIMessage);
    // ChatOpenAI's usage reached the state, so the breaker's cost budget sees real numbers.
    expect((first.messages.find((m: BaseMessage) => AIMessage.isInstance(m)) as AIMessage).usage_metadata).toMatchObject({
      input_tokens: 120,
      output_tokens: 18,
    });

    fake.setScript(plainAnswerScript("The invoices table has no overdue view; ask for the exact table."));
    fake.requests.length = 0;
    const second = await graph.invoke({ messages: [new HumanMessage("Use the invoices table instead.")] }, runConfig(threadId));

    // The fake answers 400 to a history with an unanswered tool call, as the real API does: a 200 proves the thread is whole.
    expect(fake.requests.map((r) => r.status)).toEqual([200]);
    const sent = fake.completions()[0]?.messages ?? [];
    expect(sent.filter((m) => m.role === "tool")).toHaveLength(calls.length);
    expect(second.halted).toBe(false);
    expect(second.messages.at(-1)?.content).toBe("The invoices table has no overdue view; ask for the exact table.");
  });

  it("lets a clean task run to its answer", async () => {
    fake.setScript(cleanCrmScript);
    const out = await graph.invoke({ messages: [new HumanMessage("What was Acme Corp's revenue last year?")] }, runConfig(randomUUID()));

    expect(out.halted).toBe(false);
    expect(out.messages.at(-1)?.content).toBe(CLEAN_ANSWER);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const tools = out.messages.filter((m: BaseMessage): m is ToolMessage => ToolMessage.isInstance(m));
    expect(tools.map((m: ToolMessage) => [m.name, m.status])).toEqual([
      ["query_crm", "success"],
      ["get_financials", "success"],
    ]);
    expect(String(tools[1]?.content)).toContain("acc_001");
    expect((out.verdicts as Verdict[]).every((v) => v.allowed)).toBe(true);
  });

  it("trips earlier with a tighter per-run limit in the context", async () => {
    fake.setScript(loopingSqlScript);
    const ask = { messages: [new HumanMessage("How many invoices are overdue?")] };
    await graph.invoke(ask, runConfig(randomUUID()));
    const defaultTurns = fake.completions().length;
    fake.requests.length = 0;
    const out = await graph.invoke(ask, runConfig(randomUUID(), { maxIdenticalCalls: 1 }));

    expect(out.halted).toBe(true);
    // One identical call allowed: the second one is refused.
    expect(fake.completions()).toHaveLength(2);
    expect(defaultTurns).toBeGreaterThan(2);
  });

  it("streams the completions over SSE in messages mode, and the trip reaches the update and custom streams", async () => {
    fake.setScript(loopingSqlScript);
    const threadId = randomUUID();
    const seen: { mode: string; data: unknown }[] = [];
    const stream = await graph.stream(
      { messages: [new HumanMessage("How many invoices are overdue?")] },
      { ...runConfig(threadId), streamMode: ["messages", "updates", "custom"] },
    );
    for await (const [mode, data] of stream) seen.push({ mode, data });

    expect(fake.completions().length).toBeGreaterThan(0);
    expect(fake.completions().every((r) => r.stream === true && r.stream_options?.include_usage === true)).toBe(true);
    expect(seen.some((e) => e.mode === "messages")).toBe(true);
    const fallback = seen.find((e) => e.mode === "updates" && "circuit_fallback" in (e.data as object));
    expect((fallback?.data as { circuit_fallback: { halted: boolean } }).circuit_fallback.halted).toBe(true);
    const custom = seen.filter((e) => e.mode === "custom").map((e) => e.data as { type: string; halted?: boolean });
    expect(custom.every((c) => c.type === "breaker_verdict")).toBe(true);
    expect(custom.at(-1)?.halted).toBe(true);
    const state = await graph.getState(runConfig(threadId));
    const { calls, replies } = callsAndReplies(state.values.messages);
    expect(new Set(replies)).toEqual(new Set(calls));
  });
});
