import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { createRouter } from "../../nodes/route.js";
import { resetToolFixtures, sentEmails } from "../../tools/index.js";
import { REPLAY_USAGE, configWith, inspectSession, stateWith, testResolver } from "../support/graph-helpers.js";

const THREAD = "route-thread";
const EMAIL = { to: "ops@example.com", subject: "Export finished", body: "Done." };

function asking(...calls: { id: string; name: string; args: Record<string, unknown> }[]): BaseMessage[] {
  return [
    new HumanMessage({ id: "h-1", content: "Do the thing." }),
    new AIMessage({
      content: "",
      tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })),
      usage_metadata: REPLAY_USAGE,
    }),
  ];
}

describe("createRouter", () => {
  beforeEach(() => resetToolFixtures());

  it.each<[string, BaseMessage[]]>([
    ["an empty history", []],
    ["a last message from the user", [new HumanMessage("hi")]],
    ["an AIMessage without tool calls", [new HumanMessage("hi"), new AIMessage("The answer.")]],
    ["an AIMessage with an empty tool_calls list", [new HumanMessage("hi"), new AIMessage({ content: "x", tool_calls: [] })]],
    [
      "a last ToolMessage",
      [...asking({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } }), new ToolMessage({ tool_call_id: "c1", content: "{}" })],
    ],
  ])("ends the run on %s, without asking the breaker", async (_what, messages) => {
    const { store, resolve } = testResolver();
    await expect(createRouter(resolve)(stateWith(messages), configWith({}, THREAD))).resolves.toBe(END);
    expect(await store.sessions()).toEqual([]);
  });

  it("routes to tools when every call is allowed, after recording every call and running none", async () => {
    const { store, resolve } = testResolver();
    const messages = asking(
      { id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } },
      { id: "c2", name: "get_financials", args: { account_id: "acc_001" } },
      { id: "c3", name: "send_email", args: EMAIL },
    );
    await expect(createRouter(resolve)(stateWith(messages), configWith({}, THREAD))).resolves.toBe("tools");

    const session = await inspectSession(store, THREAD);
    expect(session.window.map((c) => c.id)).toEqual(["c1", "c2", "c3"]);
    expect(session.window.every((c) => c.outcome === undefined)).toBe(true);
    expect(session.circuit.state).toBe("CLOSED");
    expect(sentEmails()).toEqual([]);
  });

  it("routes to circuit_fallback when any call is refused, and runs none of the batch", async () => {
    const { store, resolve } = testResolver();
    // A side-effecting tool may not repeat: the second identical send opens the circuit.
    const messages = asking(
      { id: "e1", name: "send_email", args: EMAIL },
      { id: "e2", name: "send_email", args: EMAIL },
    );
    await expect(createRouter(resolve)(stateWith(messages), configWith({}, THREAD))).resolves.toBe("circuit_fallback");

    const session = await inspectSession(store, THREAD);
    expect(session.window.map((c) => c.id)).toEqual(["e1", "e2"]);
    expect(session.circuit.state).toBe("OPEN");
    expect(session.circuit.findings.map((f) => f.detector)).toContain("identical_repeat");
    expect(sentEmails()).toEqual([]);
  });

  it("checks every call of the message even after one is refused", async () => {
    const { store, resolve } = testResolver();
    const messages = asking(
      { id: "e1", name: "send_email", args: EMAIL },
      { id: "e2", name: "send_email", args: EMAIL },
      { id: "c3", name: "query_crm", args: { company_name: "Acme Corp" } },
    );
    await expect(createRouter(resolve)(stateWith(messages), configWith({}, THREAD))).resolves.toBe("circuit_fallback");
    expect((await inspectSession(store, THREAD)).window.map((c) => c.id)).toEqual(["e1", "e2", "c3"]);
  });

  it("counts a re-run once, on the same worker and on a worker without the verdict memo", async () => {
    const { store, resolve } = testResolver();
    const state = stateWith(
      asking(
        { id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } },
        { id: "c2", name: "query_crm", args: { company_name: "Globex" } },
      ),
    );
    const config = configWith({}, THREAD);
    await expect(createRouter(resolve)(state, config)).resolves.toBe("tools");
    const first = await inspectSession(store, THREAD);
    expect(first.totalCalls).toBe(2);

    await expect(createRouter(resolve)(state, config)).resolves.toBe("tools");
    // A second resolver over the same store has an empty memo: the store's idempotence must hold alone.
    const otherWorker = testResolver({ store }).resolve;
    await expect(createRouter(otherWorker)(state, config)).resolves.toBe("tools");

    const after = await inspectSession(store, THREAD);
    expect(after.totalCalls).toBe(2);
    expect(after.window.map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(after.usage).toEqual(first.usage);
  });

  it("gives a refused batch the same answer on a re-run without counting it again", async () => {
    const { store, resolve } = testResolver();
    const state = stateWith(asking({ id: "e1", name: "send_email", args: EMAIL }, { id: "e2", name: "send_email", args: EMAIL }));
    const config = configWith({}, THREAD);
    await createRouter(resolve)(state, config);
    const otherWorker = testResolver({ store }).resolve;
    await expect(createRouter(otherWorker)(state, config)).resolves.toBe("circuit_fallback");
    expect((await inspectSession(store, THREAD)).totalCalls).toBe(2);
  });

  it("counts the model's token usage once for a message with several calls", async () => {
    const { store, resolve } = testResolver();
    const state = stateWith(
      asking(
        { id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } },
        { id: "c2", name: "get_financials", args: { account_id: "acc_001" } },
        { id: "c3", name: "list_orders", args: { customer_id: "cust_001" } },
      ),
    );
    await createRouter(resolve)(state, configWith({}, THREAD));
    await createRouter(resolve)(state, configWith({}, THREAD));
    const { usage } = await inspectSession(store, THREAD);
    expect(usage.inputTokens).toBe(REPLAY_USAGE.input_tokens);
    expect(usage.outputTokens).toBe(REPLAY_USAGE.output_tokens);
    expect(usage.costMicros).toBeGreaterThan(0);
  });

  it("bills the usage of answers without tool calls with the next call, once", async () => {
    const { store, resolve } = testResolver();
    const earlierTurns: BaseMessage[] = [
      new HumanMessage({ id: "h-0", content: "Hello" }),
      new AIMessage({ content: "Hi! How can I help?", usage_metadata: REPLAY_USAGE }),
      new HumanMessage({ id: "h-0b", content: "And?" }),
      new AIMessage({ content: "Anything else?", usage_metadata: REPLAY_USAGE }),
    ];
    const state = stateWith([...earlierTurns, ...asking({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } })]);
    await createRouter(resolve)(state, configWith({}, THREAD));
    await createRouter(resolve)(state, configWith({}, THREAD));
    const { usage } = await inspectSession(store, THREAD);
    expect(usage.inputTokens).toBe(3 * REPLAY_USAGE.input_tokens);
    expect(usage.outputTokens).toBe(3 * REPLAY_USAGE.output_tokens);
  });
});
