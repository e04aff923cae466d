import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { createCircuitFallbackNode } from "../../nodes/circuit-fallback.js";
import { createRouter } from "../../nodes/route.js";
import { createToolsNode } from "../../nodes/tools.js";
import { resetToolFixtures, sentEmails } from "../../tools/index.js";
import { configWith, frameOf, inspectSession, stateWith, testResolver, textOf } from "../support/graph-helpers.js";

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
    let messages: BaseMessage[] = [...before, new HumanMessage({ id: "h-2", content: "Find Acme and tell ops." })];
    messages.push(ask({ id: "c1", name: "query_crm", args: { company_name: "Acme Corp" } }));
    expect(await createRouter(resolve)(stateWith(messages), config)).toBe("tools");
    messages = [...messages, ...((await createToolsNode(resolve)(stateWith(messages), config)).messages ?? [])];
    messages.push(ask({ id: "e1", name: "send_email", args: EMAIL }, { id: "e2", name: "send_email", args: EMAIL }));
    expect(await createRouter(resolve)(stateWith(messages), config)).toBe("circuit_fallback");
    const update = await createCircuitFallbackNode(resolve)(stateWith(messages), config);
    const session = await inspectSession(store, THREAD);
    const decisive = session.circuit.findings.find((f) => f.severity === "block")!;
    expect(decisive).toBeDefined();
    return { update, decisive, replies: update.messages!.slice(0, -1) as ToolMessage[], answer: update.messages!.at(-1)! };
  }

  it("answers every pending call with an error ToolMessage holding the breaker frame", async () => {
    const { update, decisive, replies } = await trippedTurn();
    expect(update.messages).toHaveLength(3);
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
    const { update, decisive, answer } = await trippedTurn();
    expect(AIMessage.isInstance(answer)).toBe(true);
    expect((answer as AIMessage).tool_calls ?? []).toEqual([]);
    const text = textOf(answer);
    expect(text).toContain(`${decisive.detector} on send_email`);
    expect(text).toContain(`steps ${decisive.steps.join(", ")}`);
    expect(text).toMatch(/What I found before stopping:\*\*\n- query_crm: .*acc_001/);
    expect(text).toMatch(/How to proceed/);
    expect(update.halted).toBe(true);
    expect(update.verdicts?.map((v) => [v.callId, v.allowed])).toEqual([
      ["e1", true],
      ["e2", false],
    ]);
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

  it("says nothing usable was found when the turn has no successful result", async () => {
    const { resolve } = testResolver();
    const config = configWith({}, THREAD);
    const messages = [
      new HumanMessage({ id: "h-1", content: "Mail ops." }),
      ask({ id: "e1", name: "send_email", args: EMAIL }, { id: "e2", name: "send_email", args: EMAIL }),
    ];
    const update = await createCircuitFallbackNode(resolve)(stateWith(messages), config);
    expect(textOf(update.messages!.at(-1)!)).toContain("No tool call in this turn returned a usable result");
    expect(update.halted).toBe(true);
  });

  it("only sets halted when there is no pending AIMessage", async () => {
    const { resolve } = testResolver();
    const update = await createCircuitFallbackNode(resolve)(stateWith([new HumanMessage("hi")]), configWith({}, THREAD));
    expect(update).toEqual({ halted: true });
  });
});
