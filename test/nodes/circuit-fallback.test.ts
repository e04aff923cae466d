import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { createCircuitFallbackNode, STEP_LIMIT } from "../../nodes/circuit-fallback.js";
import { route } from "../../nodes/route.js";
import { createToolsNode } from "../../nodes/tools.js";
import { resetToolFixtures } from "../../tools/index.js";
import { sentEmails } from "../../tools/send-email.js";
import { checkedState, configWith, frameOf, inspectSession, stateWith, testResolver, textOf, threadSession } from "../support/graph-helpers.js";

const THREAD = "fallback-thread";
const EMAIL = { to: "ops@example.com", subject: "Export finished", body: "Done." };

type Call = { id: string; name: string; args: Record<string, unknown> };
const ask = (...calls: Call[]) =>
  new AIMessage({ content: "", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })) });

describe("circuit_fallback node", () => {
  beforeEach(() => resetToolFixtures());

  /** A turn that found the account, then asked to send one e-mail twice in one batch. */
  async function trippedTurn(before: BaseMessage[] = []) {
    const { store, resolve } = testResolver();
    const config = configWith({}, THREAD);
    const history: BaseMessage[] = [...before, new HumanMessage({ id: "h-2", content: "Find Acme and tell ops." })];
    const lookup = await checkedState(resolve, history, ask({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } }), config);
    expect(route(lookup)).toBe("tools");
    const found = (await createToolsNode(resolve)(lookup, config)) as { messages: BaseMessage[] };
    const state = await checkedState(resolve, [...lookup.messages, ...found.messages], ask({ id: "e1", name: "send_email", args: EMAIL }, { id: "e2", name: "send_email", args: EMAIL }), config);
    expect(route(state)).toBe("circuit_fallback");
    const update = await createCircuitFallbackNode(resolve)(state, config);
    const session = await inspectSession(store, threadSession(THREAD));
    const decisive = session.circuit.findings.find((f) => f.severity === "block")!;
    expect(decisive).toBeDefined();
    expect("messages" in update).toBe(true);
    const messages = (update as { messages: BaseMessage[] }).messages;
    return { update, state, decisive, replies: messages.slice(0, -1) as ToolMessage[], answer: messages.at(-1)! };
  }

  it("answers every pending call with an error ToolMessage holding the breaker frame", async () => {
    const { decisive, replies } = await trippedTurn();
    expect(replies).toHaveLength(2);
    expect(replies.map((m) => [m.tool_call_id, m.name, m.status])).toEqual([
      ["e1", "send_email", "error"],
      ["e2", "send_email", "error"],
    ]);
    const [collateral, refused] = replies.map(frameOf);
    expect(refused).toMatchObject({
      error: "CIRCUIT_BREAKER_TRIPPED",
      tool_call_id: "e2",
      ran: false,
      detector: decisive.detector,
      reason: decisive.message,
      steps: decisive.steps,
    });
    // The first e-mail was allowed on its own but never ran: its frame says why.
    expect(collateral).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", tool_call_id: "e1", ran: false, detector: decisive.detector });
    expect(collateral!.reason).toMatch(/Not run: the circuit opened on send_email \(step 3\)/);
    expect(decisive.steps).toEqual(expect.arrayContaining([2, 3]));
    expect(sentEmails()).toEqual([]);
  });

  it("ends with an answer naming the detector, the steps, what was found and how to proceed", async () => {
    const { update, state, decisive, answer } = await trippedTurn();
    expect(AIMessage.isInstance(answer)).toBe(true);
    expect((answer as AIMessage).tool_calls ?? []).toEqual([]);
    const text = textOf(answer);
    expect(text).toContain(`${decisive.detector} on send_email`);
    expect(text).toContain(`steps ${decisive.steps.join(", ")}`);
    expect(text).toMatch(/What I found before stopping:\*\*\n- query_crm: .*acc_001/);
    expect(text).toMatch(/How to proceed/);
    expect(update.halted).toBe(true);
    // The verdicts were the agent step's: the fallback reads them from the state and asks the breaker nothing.
    expect(state.verdicts.map((v) => v.allowed)).toEqual([true, false]);
    expect("verdicts" in update).toBe(false);
  });

  it("lists only results of the current user turn", async () => {
    const earlier = [
      new HumanMessage({ id: "h-1", content: "Earlier question." }),
      ask({ id: "old", name: "get_financials", args: { account_id: "acc_001" } }),
      new ToolMessage({ tool_call_id: "old", name: "get_financials", content: "EARLIER-TURN-RESULT" }),
      new AIMessage("Earlier answer."),
    ];
    const { answer } = await trippedTurn(earlier);
    expect(textOf(answer)).not.toContain("EARLIER-TURN-RESULT");
    expect(textOf(answer)).toContain("- query_crm:");
  });

  it("says nothing usable was found when the turn has no successful result, checking a batch nobody checked", async () => {
    const { resolve, store } = testResolver();
    const config = configWith({}, THREAD);
    const messages = [
      new HumanMessage({ id: "h-1", content: "Mail ops." }),
      new AIMessage({ id: "m-1", content: "", tool_calls: [{ id: "e1", name: "send_email", args: EMAIL, type: "tool_call" }, { id: "e2", name: "send_email", args: EMAIL, type: "tool_call" }] }),
    ];
    const update = (await createCircuitFallbackNode(resolve)(stateWith(messages), config)) as { messages: BaseMessage[]; halted: boolean; verdicts: unknown[] };
    expect(textOf(update.messages.at(-1)!)).toContain("No tool call in this turn returned a usable result");
    expect(update.halted).toBe(true);
    expect(update.verdicts).toHaveLength(2);
    expect((await inspectSession(store, threadSession(THREAD))).totalCalls).toBe(2);
  });

  it("ends a run whose steps ran out: every pending call answered, unrun, and an answer that says why", async () => {
    const { resolve, store } = testResolver();
    const config = { ...configWith({}, THREAD), recursionLimit: 12 };
    const state = await checkedState(resolve, [new HumanMessage({ id: "h-1", content: "Look it up." })], ask({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } }, { id: "c2", name: "get_financials", args: { account_id: "acc_001" } }), config);
    const update = (await createCircuitFallbackNode(resolve)({ ...state, outOfSteps: true }, config)) as { messages: BaseMessage[]; halted: boolean };
    const replies = update.messages.slice(0, -1) as ToolMessage[];
    expect(replies.map((m) => [m.tool_call_id, m.status])).toEqual([
      ["c1", "error"],
      ["c2", "error"],
    ]);
    expect(replies.map(frameOf)).toEqual([expect.objectContaining({ error: STEP_LIMIT, ran: false }), expect.objectContaining({ error: STEP_LIMIT, ran: false })]);
    expect(textOf(update.messages.at(-1)!)).toMatch(/about to reach its step limit \(recursion limit 12\)/);
    expect(update.halted).toBe(true);
    // Checked (and counted) in the agent step, never run.
    expect((await inspectSession(store, threadSession(THREAD))).window.every((c) => c.outcome === undefined)).toBe(true);
  });

  it("only sets halted when there is no pending AIMessage", async () => {
    const { resolve } = testResolver();
    const update = await createCircuitFallbackNode(resolve)(stateWith([new HumanMessage("hi")]), configWith({}, THREAD));
    expect(update).toEqual({ halted: true });
  });
});
