import { AIMessage, HumanMessage, type AIMessageFields, type BaseMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createBreaker, MemoryStore, type Verdict } from "../../breaker/index.js";
import { createAgentNode, type AgentUpdate } from "../../nodes/agent.js";
import { checkCalls } from "../../nodes/check-calls.js";
import { SCENARIOS } from "../../demo/index.js";
import { route } from "../../nodes/route.js";
import { UNPARSED_ARGS_KEY, pendingCalls } from "../../nodes/tool-calls.js";
import { EXAMPLE_TOOLS, resetToolFixtures, toolNature } from "../../tools/index.js";
import { sentEmails } from "../../tools/send-email.js";
import {
  REPLAY_USAGE,
  ReplayChatModel,
  callsTurn,
  configWith,
  inspectSession,
  stateWith,
  testResolver,
  threadSession,
} from "../support/graph-helpers.js";

const THREAD = "agent-thread";
const EMAIL = { to: "ops@example.com", subject: "Export finished", body: "Done." };
const question = () => new HumanMessage({ id: "h-1", content: "Question?" });

type Deps = Parameters<typeof testResolver>[0];

/** Run the agent node once on `history` (a fresh user message by default) and return its update and message. */
async function agentStep(deps: Deps, context: Record<string, unknown> = {}, history: BaseMessage[] = [question()], thread = THREAD) {
  const { resolve } = testResolver(deps);
  const update = await createAgentNode(resolve)({ ...stateWith(history), halted: true }, configWith(context, thread));
  expect(update.messages).toHaveLength(1);
  const message = update.messages[0]!;
  expect(AIMessage.isInstance(message)).toBe(true);
  return { ...update, message: message as AIMessage };
}

/** A model that asks for `calls` once, then answers. */
const asking = (...calls: { id?: string; name: string; args: Record<string, unknown> }[]) => new ReplayChatModel([callsTurn(...calls)]);

describe("agent node: the model's answer", () => {
  it("asks the scripted model of the context and records the session and a fresh run", async () => {
    const { message, sessionId, halted } = await agentStep({}, { model: "scripted:clean" });
    const expected = SCENARIOS.get("clean")!.turns[0]!.calls![0]!;
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls![0]).toMatchObject({ name: expected.name, args: expected.args });
    expect(message.tool_calls![0]!.id).toMatch(/^call_/);
    expect(message.usage_metadata?.output_tokens).toBe(40);
    expect(message.response_metadata?.model_name).toBe("scripted:clean");
    expect(sessionId).toBe(threadSession(THREAD));
    expect(halted).toBe(false);
  });

  it("puts the context's system prompt in front of the conversation", async () => {
    const model = new ReplayChatModel([], "ok");
    await agentStep({ model }, { systemPrompt: "Be terse." });
    const prompt = model.prompts[0]!;
    expect(prompt[0]!.getType()).toBe("system");
    expect(prompt[0]!.content).toBe("Be terse.");
    expect(prompt.slice(1).map((m) => m.content)).toEqual(["Question?"]);
  });

  it("gives calls without an id one, and makes duplicate ids unique within the message", async () => {
    const model = asking(
      { name: "query_crm", args: { company_name: "Acme Corp" } },
      { id: "dup", name: "query_crm", args: { company_name: "Globex" } },
      { id: "dup", name: "get_financials", args: { account_id: "acc_001" } },
      { id: "dup", name: "get_financials", args: { account_id: "acc_002" } },
    );
    const { message } = await agentStep({ model });
    const ids = message.tool_calls!.map((c) => c.id);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(4);
    expect(ids.slice(1)).toEqual(["dup", "dup_2", "dup_3"]);
    expect(message.tool_calls!.map((c) => c.args)).toEqual([
      { company_name: "Acme Corp" },
      { company_name: "Globex" },
      { account_id: "acc_001" },
      { account_id: "acc_002" },
    ]);
  });

  it("keeps the model's own call id when it reuses one from an earlier turn, and the message gets an id of its own", async () => {
    const earlier: BaseMessage[] = [
      question(),
      new AIMessage({ id: "chatcmpl-same", content: "", tool_calls: [{ id: "call_0", name: "query_crm", args: { company_name: "Acme Corp" }, type: "tool_call" }] }),
    ];
    const model = new ReplayChatModel([{ ...callsTurn({ id: "call_0", name: "query_crm", args: { company_name: "Globex" } }), id: "chatcmpl-same" }]);
    const { message } = await agentStep({ model }, {}, [...earlier, new HumanMessage({ id: "h-2", content: "And Globex?" })]);
    // The reply must answer the id the provider gave; the breaker tells the calls apart by message.
    expect(message.tool_calls![0]!.id).toBe("call_0");
    // A message id already in the thread would make the messages reducer replace the earlier message.
    expect(message.id).toBeTruthy();
    expect(message.id).not.toBe("chatcmpl-same");
  });

  it("moves invalid_tool_calls into tool_calls with their raw arguments", async () => {
    const raw = '{"company_name": "Acme';
    const model = new ReplayChatModel([
      {
        content: "",
        tool_calls: [{ id: "ok-1", name: "query_crm", args: { company_name: "Acme Corp" }, type: "tool_call" }],
        invalid_tool_calls: [
          { id: "bad-1", name: "query_crm", args: raw, error: "Unterminated string", type: "invalid_tool_call" },
          { id: "ok-1", name: undefined, args: undefined, error: undefined, type: "invalid_tool_call" },
        ],
      },
    ]);
    const { message } = await agentStep({ model });
    expect(message.invalid_tool_calls).toEqual([]);
    expect(message.tool_calls!.map((c) => c.id)).toEqual(["ok-1", "bad-1", "ok-1_2"]);
    expect(message.tool_calls![1]!.args).toEqual({ [UNPARSED_ARGS_KEY]: raw, error: "Unterminated string" });

    const pending = pendingCalls(message);
    expect(pending[0]).toEqual({ id: "ok-1", name: "query_crm", args: { company_name: "Acme Corp" } });
    expect(pending[1]).toEqual({ id: "bad-1", name: "query_crm", args: raw, parseError: "Unterminated string" });
    expect(pending[2]).toMatchObject({ id: "ok-1_2", name: "", args: "" });
    expect(pending[2]!.parseError).toBeTruthy();
  });

  it("answers without tool calls when the scripted turns run out, and asks the breaker nothing", async () => {
    const store = new MemoryStore();
    const update = await agentStep({ model: new ReplayChatModel([], "All done."), store });
    expect(update.message.content).toBe("All done.");
    expect(update.message.tool_calls ?? []).toEqual([]);
    expect(update.verdicts).toBeUndefined();
    expect(await store.sessions()).toEqual([]);
  });

  it("masks the API key in a model error", async () => {
    const key = "sk-agent-test-0123456789abcdef";
    const failing = new ReplayChatModel([]);
    vi.spyOn(failing, "_generate").mockRejectedValue(new Error(`401 Incorrect API key provided: ${key}`));
    await expect(agentStep({ model: failing, env: { OPENAI_API_KEY: key } })).rejects.toThrow(/Incorrect API key provided: \*\*\*/);
  });
});

describe("agent node: the breaker's verdicts, in the same step", () => {
  beforeEach(() => resetToolFixtures());

  it("checks every call of the message in one batch and writes the verdicts beside it, running none", async () => {
    const store = new MemoryStore();
    // A policy that states every tool's nature: the graph uses this very breaker, so the spy sees its calls.
    const tools = Object.fromEntries(EXAMPLE_TOOLS.map((t) => [t.name, { nature: toolNature(t) }]));
    const breaker = createBreaker({ store, policy: { tools } });
    const batch = vi.spyOn(breaker, "checkBatch");
    const { message, verdicts } = await agentStep({
      breaker,
      model: asking(
        { id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } },
        { id: "c2", name: "get_financials", args: { account_id: "acc_001" } },
        { id: "c3", name: "send_email", args: EMAIL },
      ),
    });
    expect(batch).toHaveBeenCalledTimes(1);
    expect(batch.mock.calls[0]![1]).toHaveLength(3);
    expect(verdicts?.map((v) => [v.tool, v.allowed])).toEqual([
      ["query_crm", true],
      ["get_financials", true],
      ["send_email", true],
    ]);
    // The breaker knows each call by an id namespaced with the thread and the message.
    expect(verdicts?.map((v) => v.callId)).toEqual(["c1", "c2", "c3"].map((c) => `${THREAD}/${message.id}/${c}`));
    const session = await inspectSession(store, threadSession(THREAD));
    expect(session.window.map((c) => c.id)).toEqual(verdicts?.map((v) => v.callId));
    expect(session.window.every((c) => c.outcome === undefined)).toBe(true);
    expect(sentEmails()).toEqual([]);
  });

  it("writes a refusal the router turns into circuit_fallback, after checking every call of the batch", async () => {
    const store = new MemoryStore();
    const update = await agentStep({
      store,
      model: asking(
        { id: "e1", name: "send_email", args: EMAIL },
        { id: "e2", name: "send_email", args: EMAIL },
        { id: "c3", name: "query_crm", args: { company_name: "Acme Corp" } },
      ),
    });
    expect(update.verdicts?.map((v) => v.allowed)).toEqual([true, false, false]);
    expect(route(stateWith([question(), update.message], "", update.verdicts))).toBe("circuit_fallback");
    const session = await inspectSession(store, threadSession(THREAD));
    expect(session.window).toHaveLength(3);
    expect(session.circuit.state).toBe("OPEN");
    expect(session.circuit.findings.map((f) => f.detector)).toContain("identical_repeat");
    expect(sentEmails()).toEqual([]);
  });

  it("counts a re-check of the same message once, on this worker or another", async () => {
    const store = new MemoryStore();
    const { message, verdicts } = await agentStep({
      store,
      model: asking({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } }, { id: "c2", name: "query_crm", args: { company_name: "Globex" } }),
    });
    const first = await inspectSession(store, threadSession(THREAD));
    expect(first.totalCalls).toBe(2);
    // A retried step, or another worker resuming the thread, checks the same message again.
    const otherWorker = testResolver({ store }).resolve;
    const messages = [question(), message];
    const again = await checkCalls(otherWorker(stateWith(messages), configWith({}, THREAD)), messages);
    expect(again.map((v) => [v.callId, v.allowed])).toEqual(verdicts?.map((v) => [v.callId, v.allowed]));
    const after = await inspectSession(store, threadSession(THREAD));
    expect(after.totalCalls).toBe(2);
    expect(after.usage).toEqual(first.usage);
  });

  it("counts a call_0 the model reuses on every turn as a new call each time", async () => {
    const store = new MemoryStore();
    let history: BaseMessage[] = [question()];
    for (let turn = 0; turn < 3; turn++) {
      const { message } = await agentStep({ store, model: asking({ id: "call_0", name: "query_crm", args: { company_name: `Co ${turn}` } }) }, {}, history);
      history = [...history, message, new HumanMessage({ id: `h-next-${turn}`, content: "Next." })];
    }
    const session = await inspectSession(store, threadSession(THREAD));
    expect(session.totalCalls).toBe(3);
    expect(new Set(session.window.map((c) => c.id)).size).toBe(3);
  });

  it("counts the same provider ids in two threads of one caller session as different calls", async () => {
    const store = new MemoryStore();
    const env = { BREAKER_CALLER_SESSIONS: "true" };
    const context = { sessionId: "shared" };
    const turn: AIMessageFields = { ...callsTurn({ id: "call_0", name: "query_crm", args: { company_name: "Acme Corp" } }), id: "chatcmpl-0" };
    const a = await agentStep({ store, env, model: new ReplayChatModel([turn]) }, context, [question()], "thread-a");
    const b = await agentStep({ store, env, model: new ReplayChatModel([turn]) }, context, [question()], "thread-b");
    expect(a.sessionId).toBe(b.sessionId);
    const session = await inspectSession(store, a.sessionId!);
    expect(session.totalCalls).toBe(2);
  });

  it("bills the model's token usage once for a message with several calls, and earlier unbilled answers with it", async () => {
    const store = new MemoryStore();
    const earlier: BaseMessage[] = [
      new HumanMessage({ id: "h-0", content: "Hello" }),
      new AIMessage({ content: "Hi! How can I help?", usage_metadata: REPLAY_USAGE }),
      question(),
    ];
    await agentStep(
      {
        store,
        model: asking({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } }, { id: "c2", name: "get_financials", args: { account_id: "acc_001" } }),
      },
      {},
      earlier,
    );
    const { usage } = await inspectSession(store, threadSession(THREAD));
    expect(usage.inputTokens).toBe(2 * REPLAY_USAGE.input_tokens);
    expect(usage.outputTokens).toBe(2 * REPLAY_USAGE.output_tokens);
    expect(usage.costMicros).toBeGreaterThan(0);
  });

  it("streams the verdicts to the run's writer, with the store's degraded marker when a fail mode answered", async () => {
    const base = createBreaker({ store: new MemoryStore() });
    // The verdicts a RedisStore in fail mode returns while Redis is down.
    const degraded = { ...base, checkBatch: async (...args: Parameters<typeof base.checkBatch>) => (await base.checkBatch(...args)).map((v): Verdict => ({ ...v, degraded: { reason: "Redis at redis://:hunter2hunter2@db:6379 is unreachable" } })) };
    const { resolve } = testResolver({ breaker: degraded, model: asking({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } }) });
    const events: unknown[] = [];
    const update: AgentUpdate = await createAgentNode(resolve)(stateWith([question()]), { ...configWith({}, THREAD), writer: (chunk: unknown) => events.push(chunk) });
    expect(update.verdicts?.[0]?.degraded?.reason).toMatch(/Redis at redis:\/\/:\*\*\*@db:6379 is unreachable/);
    expect(events).toEqual([
      expect.objectContaining({ type: "breaker_verdict", sessionId: threadSession(THREAD), degraded: { reason: expect.stringContaining("unreachable") }, verdicts: update.verdicts }),
    ]);
    expect(JSON.stringify(events)).not.toContain("hunter2hunter2");
  });

  it("flags the run out of steps when another tools round would not fit in its recursion limit", async () => {
    const { resolve } = testResolver({ model: new ReplayChatModel([callsTurn({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } })]) });
    const node = createAgentNode(resolve);
    const at = (step: number, recursionLimit: number) =>
      node(stateWith([question()]), { ...configWith({}, THREAD), recursionLimit, metadata: { langgraph_step: step } });
    // First step of the turn at step 1: the run must be done by step limit - 1; tools, agent and circuit_fallback need three more.
    expect((await at(1, 5)).outOfSteps).toBeUndefined();
    expect((await at(1, 4)).outOfSteps).toBe(true);
  });
});
