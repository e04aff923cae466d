import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import type { Verdict } from "../../breaker/index.js";
import { createRouter } from "../../nodes/route.js";
import { ADVISORY_TAG, createToolsNode } from "../../nodes/tools.js";
import { resetToolFixtures, sentEmails } from "../../tools/index.js";
import { configWith, frameOf, inspectSession, stateWith, testResolver, textOf } from "../support/graph-helpers.js";

const THREAD = "tools-thread";
const BAD_SQL = { sql: "SELECT * FROM overdue_invoices" };

type Call = { id: string; name: string; args: Record<string, unknown> };
type Resolve = ReturnType<typeof testResolver>["resolve"];

const ask = (...calls: Call[]) =>
  new AIMessage({ content: "", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })) });

/** Route then run the tools node on `history + ask(calls)`, as the graph does; returns the grown history. */
async function step(resolve: Resolve, history: BaseMessage[], ...calls: Call[]) {
  const messages = [...history, ask(...calls)];
  const config = configWith({}, THREAD);
  expect(await createRouter(resolve)(stateWith(messages), config)).toBe("tools");
  const update = await createToolsNode(resolve)(stateWith(messages), config);
  return { update, messages: [...messages, ...(update.messages ?? [])], replies: (update.messages ?? []) as ToolMessage[] };
}

describe("tools node", () => {
  beforeEach(() => resetToolFixtures());
  const start = [new HumanMessage({ id: "h-1", content: "Look things up." })];

  it("runs every approved call and answers each with a ToolMessage carrying its id", async () => {
    const { resolve } = testResolver();
    const { replies, update } = await step(
      resolve,
      start,
      { id: "c-ok", name: "query_crm", args: { company_name: "Acme Corp" } },
      { id: "c-empty", name: "query_crm", args: { company_name: "Nobody Ltd" } },
      { id: "c-err", name: "query_database", args: BAD_SQL },
    );
    expect(replies.map((m) => [m.tool_call_id, m.name, m.status])).toEqual([
      ["c-ok", "query_crm", "success"],
      ["c-empty", "query_crm", "success"],
      ["c-err", "query_database", "error"],
    ]);
    expect(textOf(replies[0]!)).toContain("acc_001");
    expect(textOf(replies[1]!)).toContain('"matches":[]');
    expect(textOf(replies[2]!)).toMatch(/relation "overdue_invoices" does not exist/);
    expect(update.verdicts?.map((v) => v.allowed)).toEqual([true, true, true]);
  });

  it("reports each outcome to the breaker as ok, empty or error with a stable fingerprint", async () => {
    const { store, resolve } = testResolver();
    const first = await step(
      resolve,
      start,
      { id: "c-ok", name: "query_crm", args: { company_name: "Acme Corp" } },
      { id: "c-empty", name: "query_crm", args: { company_name: "Nobody Ltd" } },
      { id: "c-err", name: "query_database", args: BAD_SQL },
    );
    await step(resolve, first.messages, { id: "c-ok-again", name: "query_crm", args: { company_name: "Acme Corp" } });

    const { window } = await inspectSession(store, THREAD);
    const outcome = (id: string) => window.find((c) => c.id === id)?.outcome;
    expect(outcome("c-ok")?.kind).toBe("ok");
    expect(outcome("c-empty")?.kind).toBe("empty");
    expect(outcome("c-err")?.kind).toBe("error");
    expect(outcome("c-ok-again")?.fingerprint).toBe(outcome("c-ok")?.fingerprint);
    expect(outcome("c-empty")?.fingerprint).not.toBe(outcome("c-ok")?.fingerprint);
  });

  it("adds the HALF_OPEN advisory exactly to the results of calls the breaker warned about", async () => {
    const { resolve } = testResolver();
    const config = configWith({}, THREAD);
    let history: BaseMessage[] = start;
    const replies: ToolMessage[] = [];
    // Repeat one failing query until the router refuses it; every call before that runs.
    for (let n = 1; n <= 10; n++) {
      const messages = [...history, ask({ id: `q${n}`, name: "query_database", args: BAD_SQL })];
      if ((await createRouter(resolve)(stateWith(messages), config)) !== "tools") break;
      const update = await createToolsNode(resolve)(stateWith(messages), config);
      replies.push(...(update.messages as ToolMessage[]));
      history = [...messages, ...(update.messages ?? [])];
    }
    const states = replies.map((m) => (m.artifact as { circuit: Verdict }).circuit.state);
    expect(replies.length).toBeLessThan(10);
    expect(states[0]).toBe("CLOSED");
    expect(states.at(-1)).toBe("HALF_OPEN");
    for (const [i, reply] of replies.entries()) {
      const text = textOf(reply);
      expect(text.includes(ADVISORY_TAG), `reply ${i + 1}`).toBe(states[i] === "HALF_OPEN");
      // The tool still ran: its own result comes first, any advisory after it.
      expect(text.startsWith("Error: query_database failed")).toBe(true);
    }
    expect(textOf(replies.at(-1)!)).toMatch(/Loop warning from the circuit breaker: .*query_database/);
  });

  it("runs no call of a batch with a refusal, answering each with the breaker frame", async () => {
    const { resolve } = testResolver();
    const email = { to: "ops@example.com", subject: "Hi", body: "Hello" };
    const messages = [
      ...start,
      ask({ id: "e1", name: "send_email", args: email }, { id: "e2", name: "send_email", args: email }),
    ];
    const update = await createToolsNode(resolve)(stateWith(messages), configWith({}, THREAD));
    const replies = update.messages as ToolMessage[];
    expect(replies.map((m) => m.tool_call_id)).toEqual(["e1", "e2"]);
    expect(replies.map((m) => m.status)).toEqual(["error", "error"]);
    expect(frameOf(replies[1]!)).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", ran: false, detector: "identical_repeat" });
    expect(frameOf(replies[0]!)).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", ran: false });
    expect(frameOf(replies[0]!).reason).toMatch(/same turn/);
    expect(sentEmails()).toHaveLength(0);
  });

  it("streams the verdicts to the run's writer", async () => {
    const { resolve } = testResolver();
    const events: unknown[] = [];
    const config = { ...configWith({}, THREAD), writer: (chunk: unknown) => events.push(chunk) };
    const messages = [...start, ask({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } })];
    await createToolsNode(resolve)(stateWith(messages), config);
    expect(events).toEqual([
      expect.objectContaining({ type: "breaker_verdict", sessionId: THREAD, verdicts: [expect.objectContaining({ callId: "c1" })] }),
    ]);
  });

  it("does nothing when the last message is not from the model", async () => {
    const { store, resolve } = testResolver();
    expect(await createToolsNode(resolve)(stateWith(start), configWith({}, THREAD))).toEqual({});
    expect(await store.sessions()).toEqual([]);
  });
});
