import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, GraphInterrupt, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { getEventListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createBreaker, MemoryStore, type Verdict } from "../../breaker/index.js";
import { route } from "../../nodes/route.js";
import { ADVISORY_TAG, createToolsNode, type ToolsUpdate } from "../../nodes/tools.js";
import { defineTool, EXAMPLE_TOOLS, resetToolFixtures, toolNature } from "../../tools/index.js";
import { sentEmails } from "../../tools/send-email.js";
import { checkedState, configWith, frameOf, inspectSession, stateWith, testResolver, textOf, threadSession } from "../support/graph-helpers.js";

const THREAD = "tools-thread";
const BAD_SQL = { sql: "SELECT * FROM overdue_invoices" };

type Call = { id: string; name: string; args: Record<string, unknown> };
type Resolve = ReturnType<typeof testResolver>["resolve"];

const ask = (...calls: Call[]) =>
  new AIMessage({ content: "", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })) });

const messagesOf = (update: ToolsUpdate): BaseMessage[] => (Array.isArray(update) ? [] : (update.messages ?? []));

/** The agent step's check, the router, then the tools node on `history + ask(calls)`, as the graph runs them. */
async function step(resolve: Resolve, history: BaseMessage[], calls: Call[], config: LangGraphRunnableConfig = configWith({}, THREAD)) {
  const state = await checkedState(resolve, history, ask(...calls), config);
  expect(route(state)).toBe("tools");
  const update = await createToolsNode(resolve)(state, config);
  const replies = messagesOf(update) as ToolMessage[];
  return { update, state, replies, messages: [...state.messages, ...replies] };
}

/** A tool that waits until its signal aborts (or `ms` pass), recording what it saw. */
function waitingTool(timeoutMs: number, ms = 5_000) {
  const seen: { started: boolean; aborted?: unknown } = { started: false };
  const tool = defineTool(
    { name: "slow_probe", description: "Waits.", schema: z.object({}), nature: "read_only", timeoutMs },
    async (_input, { signal }) => {
      seen.started = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener("abort", () => {
          seen.aborted = signal.reason;
          clearTimeout(timer);
          resolve();
        });
      });
      return "finished";
    },
  );
  return { tool, seen };
}

describe("tools node", () => {
  beforeEach(() => resetToolFixtures());
  const start = [new HumanMessage({ id: "h-1", content: "Look things up." })];

  it("runs every approved call and answers each with a ToolMessage carrying its id", async () => {
    const { resolve } = testResolver();
    const { replies } = await step(resolve, start, [
      { id: "c-ok", name: "query_crm", args: { company_name: "Acme Corp" } },
      { id: "c-empty", name: "query_crm", args: { company_name: "Nobody Ltd" } },
      { id: "c-err", name: "query_database", args: BAD_SQL },
    ]);
    expect(replies.map((m) => [m.tool_call_id, m.name, m.status])).toEqual([
      ["c-ok", "query_crm", "success"],
      ["c-empty", "query_crm", "success"],
      ["c-err", "query_database", "error"],
    ]);
    expect(textOf(replies[0]!)).toContain("acc_001");
    expect(textOf(replies[1]!)).toContain('"matches":[]');
    expect(textOf(replies[2]!)).toMatch(/relation "overdue_invoices" does not exist/);
    expect(replies.map((m) => (m.artifact as { circuit: Verdict }).circuit.allowed)).toEqual([true, true, true]);
  });

  it("reports the batch's outcomes to the breaker in one call, as ok, empty or error with a stable fingerprint", async () => {
    const store = new MemoryStore();
    const tools = Object.fromEntries(EXAMPLE_TOOLS.map((t) => [t.name, { nature: toolNature(t) }]));
    const breaker = createBreaker({ store, policy: { tools } });
    const completions = vi.spyOn(breaker, "completeBatch");
    const { resolve } = testResolver({ breaker });
    const first = await step(resolve, start, [
      { id: "c-ok", name: "query_crm", args: { company_name: "Acme Corp" } },
      { id: "c-empty", name: "query_crm", args: { company_name: "Nobody Ltd" } },
      { id: "c-err", name: "query_database", args: BAD_SQL },
    ]);
    expect(completions).toHaveBeenCalledTimes(1);
    expect(completions.mock.calls[0]![1].map((c) => c.callId)).toEqual(first.state.verdicts.map((v) => v.callId));
    await step(resolve, first.messages, [{ id: "c-ok-again", name: "query_crm", args: { company_name: "Acme Corp" } }]);

    const { window } = await inspectSession(store, threadSession(THREAD));
    const outcome = (id: string) => window.find((c) => c.id.endsWith(`/${id}`))?.outcome;
    expect(outcome("c-ok")?.kind).toBe("ok");
    expect(outcome("c-empty")?.kind).toBe("empty");
    expect(outcome("c-err")?.kind).toBe("error");
    expect(outcome("c-ok-again")?.fingerprint).toBe(outcome("c-ok")?.fingerprint);
    expect(outcome("c-empty")?.fingerprint).not.toBe(outcome("c-ok")?.fingerprint);
    // Each reply carries the outcome the breaker recorded, so Studio and the demo need not read it from the text.
    for (const reply of first.replies) expect((reply.artifact as { outcome?: unknown }).outcome, reply.tool_call_id).toEqual(outcome(reply.tool_call_id));
  });

  it("adds the HALF_OPEN advisory exactly to the results of calls the breaker warned about", async () => {
    const { resolve } = testResolver();
    const config = configWith({}, THREAD);
    let history: BaseMessage[] = start;
    const replies: ToolMessage[] = [];
    // Repeat one failing query until the router refuses it; every call before that runs.
    for (let n = 1; n <= 10; n++) {
      const state = await checkedState(resolve, history, ask({ id: `q${n}`, name: "query_database", args: BAD_SQL }), config);
      if (route(state) !== "tools") break;
      const update = messagesOf(await createToolsNode(resolve)(state, config)) as ToolMessage[];
      replies.push(...update);
      history = [...state.messages, ...update];
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

  it("checks a message nobody checked (one edited into the thread) before running it, and runs none of a refused batch", async () => {
    const { resolve, store } = testResolver();
    const email = { to: "ops@example.com", subject: "Hi", body: "Hello" };
    const message = new AIMessage({
      id: "edited",
      content: "",
      tool_calls: [
        { id: "e1", name: "send_email", args: email, type: "tool_call" },
        { id: "e2", name: "send_email", args: email, type: "tool_call" },
      ],
    });
    const update = await createToolsNode(resolve)(stateWith([...start, message]), configWith({}, THREAD));
    const replies = messagesOf(update) as ToolMessage[];
    expect(replies.map((m) => [m.tool_call_id, m.status])).toEqual([
      ["e1", "error"],
      ["e2", "error"],
    ]);
    expect(frameOf(replies[1]!)).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", ran: false, detector: "identical_repeat" });
    expect(frameOf(replies[0]!).reason).toMatch(/same turn/);
    expect(Array.isArray(update) ? undefined : update.verdicts?.map((v) => v.allowed)).toEqual([true, false]);
    expect(sentEmails()).toHaveLength(0);
    expect((await inspectSession(store, threadSession(THREAD))).totalCalls).toBe(2);
  });

  it("does nothing when the last message is not from the model", async () => {
    const { store, resolve } = testResolver();
    expect(await createToolsNode(resolve)(stateWith(start), configWith({}, THREAD))).toEqual({});
    expect(await store.sessions()).toEqual([]);
  });
});

describe("tools node: LangGraph's tool semantics", () => {
  const start = [new HumanMessage({ id: "h-1", content: "Go." })];

  it("aborts the tool's signal when the run is cancelled, and lets the cancellation through", async () => {
    const { tool, seen } = waitingTool(10_000);
    const { resolve } = testResolver({ tools: [tool] });
    const run = new AbortController();
    const config = { ...configWith({}, THREAD), signal: run.signal };
    const state = await checkedState(resolve, start, ask({ id: "s1", name: "slow_probe", args: {} }), config);
    const pending = createToolsNode(resolve)(state, config);
    while (!seen.started) await sleep(5);
    run.abort(new Error("run cancelled"));
    await expect(pending).rejects.toThrow("run cancelled");
    expect(seen.aborted).toEqual(new Error("run cancelled"));
  });

  it("follows the run's signal with one listener for a batch of many parallel calls, and cancels them all", async () => {
    const aborted: unknown[] = [];
    let started = 0;
    const probe = defineTool(
      { name: "wide_probe", description: "Waits on one shard.", schema: z.object({ shard: z.number() }), nature: "read_only", timeoutMs: 10_000 },
      async (_input, { signal }) => {
        started++;
        await new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(void aborted.push(signal.reason))));
        return "finished";
      },
    );
    const { resolve } = testResolver({ tools: [probe] });
    const run = new AbortController();
    const config = { ...configWith({}, THREAD), signal: run.signal };
    const calls = Array.from({ length: 12 }, (_, shard) => ({ id: `w${shard}`, name: "wide_probe", args: { shard } }));
    const state = await checkedState(resolve, start, ask(...calls), config);
    const pending = createToolsNode(resolve)(state, config);
    while (started < calls.length) await sleep(5);
    // Node warns past ten listeners on one signal: the batch holds one, whatever its size.
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    run.abort(new Error("run cancelled"));
    await expect(pending).rejects.toThrow("run cancelled");
    expect(aborted).toHaveLength(calls.length);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("keeps the tool's own timeout under the run's signal: the call ends in an error result, the run goes on", async () => {
    const { tool, seen } = waitingTool(30);
    const { resolve } = testResolver({ tools: [tool] });
    const run = new AbortController();
    const { replies } = await step(resolve, start, [{ id: "s1", name: "slow_probe", args: {} }], { ...configWith({}, THREAD), signal: run.signal });
    expect(replies.map((m) => m.status)).toEqual(["error"]);
    expect(textOf(replies[0]!)).toBe("Error: slow_probe did not finish within 30 ms.");
    expect(String(seen.aborted)).toMatch(/did not finish within 30 ms/);
    expect(run.signal.aborted).toBe(false);
  });

  it("ends a tool that ignores its signal at its timeout all the same", async () => {
    const stubborn = defineTool({ name: "stubborn", description: "Ignores its signal.", schema: z.object({}), nature: "read_only", timeoutMs: 30 }, async () => {
      await sleep(300);
      return "too late";
    });
    const { resolve } = testResolver({ tools: [stubborn] });
    const { replies } = await step(resolve, start, [{ id: "s1", name: "stubborn", args: {} }]);
    expect(textOf(replies[0]!)).toBe("Error: stubborn did not finish within 30 ms.");
  });

  it("lets a tool's interrupt bubble up to LangGraph instead of turning it into an error result", async () => {
    const asking = defineTool({ name: "needs_approval", description: "Pauses.", schema: z.object({}), nature: "side_effecting" }, () => {
      throw new GraphInterrupt([{ value: "Approve?", id: "i1" }]);
    });
    const { resolve } = testResolver({ tools: [asking] });
    const state = await checkedState(resolve, start, ask({ id: "a1", name: "needs_approval", args: {} }), configWith({}, THREAD));
    await expect(createToolsNode(resolve)(state, configWith({}, THREAD))).rejects.toBeInstanceOf(GraphInterrupt);
  });

  it("applies a Command a tool returns, answering the call with the tool's own reply", async () => {
    const commanding = defineTool({ name: "commanding", description: "Returns a Command.", schema: z.object({}), nature: "read_only" }, (_input, { toolCallId }) =>
      new Command({ update: { messages: [new ToolMessage({ tool_call_id: toolCallId, content: "set by the command" })] } }),
    );
    const { resolve } = testResolver({ tools: [commanding, ...EXAMPLE_TOOLS] });
    const state = await checkedState(
      resolve,
      start,
      ask({ id: "k1", name: "commanding", args: {} }, { id: "k2", name: "query_crm", args: { company_name: "Acme Corp" } }),
      configWith({}, THREAD),
    );
    const update = await createToolsNode(resolve)(state, configWith({}, THREAD));
    expect(Array.isArray(update)).toBe(true);
    const [command, plain] = update as [Command, { messages: ToolMessage[] }];
    expect(command).toBeInstanceOf(Command);
    const replies = (command.update as { messages: ToolMessage[] }).messages;
    expect(replies.map((m) => [m.tool_call_id, textOf(m)])).toEqual([["k1", "set by the command"]]);
    expect((replies[0]!.artifact as { circuit: Verdict }).circuit.callId).toBe(state.verdicts[0]!.callId);
    expect(plain.messages.map((m) => m.tool_call_id)).toEqual(["k2"]);
  });

  it("answers the call itself when a tool's Command carries no reply for it", async () => {
    const silent = defineTool({ name: "silent_command", description: "Returns a Command without a reply.", schema: z.object({}), nature: "read_only" }, () =>
      new Command({ update: { halted: false } }),
    );
    const { resolve } = testResolver({ tools: [silent] });
    const state = await checkedState(resolve, start, ask({ id: "q1", name: "silent_command", args: {} }), configWith({}, THREAD));
    const [command] = (await createToolsNode(resolve)(state, configWith({}, THREAD))) as [Command];
    const update = command.update as { halted: boolean; messages: ToolMessage[] };
    expect(update.halted).toBe(false);
    expect(update.messages.map((m) => [m.tool_call_id, m.status])).toEqual([["q1", "success"]]);
  });

  it("masks secrets in tool outputs and tool errors before they reach the state", async () => {
    const leaky = defineTool({ name: "leaky", description: "Echoes credentials.", schema: z.object({ fail: z.boolean() }), nature: "read_only" }, ({ fail }) => {
      if (fail) throw new Error("connect to postgres://app:s3cr3t-pw@db:5432/main failed");
      return { header: "Authorization: Bearer abcdefghijklmnop123456", key: "sk-proj-ABCDEFGHIJKLMNOPQRSTUV", env: "my-own-secret-value" };
    });
    const { resolve } = testResolver({ tools: [leaky], env: { SERVICE_TOKEN: "my-own-secret-value" } });
    const { replies } = await step(resolve, start, [
      { id: "l1", name: "leaky", args: { fail: false } },
      { id: "l2", name: "leaky", args: { fail: true } },
    ]);
    const text = replies.map(textOf).join("\n");
    for (const secret of ["abcdefghijklmnop123456", "ABCDEFGHIJKLMNOPQRSTUV", "my-own-secret-value", "s3cr3t-pw"]) expect(text).not.toContain(secret);
    expect(text).toContain("Bearer ***");
    expect(text).toContain("postgres://app:***@db:5432/main");
  });
});
