import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createBreaker, MemoryStore, type PolicyInput, type ToolNature, type Verdict } from "../../breaker/index.js";
import { defineTool, EXAMPLE_TOOLS, resetToolFixtures } from "../../tools/index.js";
import { ReplayChatModel, callsTurn, runTurn, testGraph, trajectory } from "../support/graph-helpers.js";

/** An invoicing tool, side-effecting unless told otherwise, that counts what it did. */
function invoiceTool(nature: ToolNature = "side_effecting") {
  const sent: unknown[] = [];
  const tool = defineTool(
    { name: "send_invoice", description: "Send an invoice.", schema: z.object({ customer: z.string(), amount: z.number() }), nature },
    (input) => {
      sent.push(input);
      return { sent: true };
    },
  );
  return { tool, sent };
}

const twelveInvoices = () => new ReplayChatModel(Array.from({ length: 12 }, () => callsTurn({ name: "send_invoice", args: { customer: "cust_001", amount: 120 } })));

describe("an injected breaker and the natures tools declare", () => {
  beforeEach(() => resetToolFixtures());

  it("still refuses the second identical side-effecting call, as the tool declares", async () => {
    const { tool, sent } = invoiceTool();
    const breaker = createBreaker({ store: new MemoryStore(), policy: { detectors: { identical_repeat: { warn: 2, block: 3 } } } });
    const { graph } = testGraph({ breaker, model: twelveInvoices(), tools: [...EXAMPLE_TOOLS, tool] });
    const { state } = await runTurn(graph, "Bill Acme.", { thread: "invoices" });
    expect(sent).toHaveLength(1);
    expect(trajectory(state.messages, { detectors: true })).toEqual(["ran", "refused:identical_repeat"]);
  });

  it("keeps a nature the breaker's policy states for the tool over the one it declares", async () => {
    const runs = async (declared: ToolNature, policy: PolicyInput) => {
      const { tool, sent } = invoiceTool(declared);
      const { graph } = testGraph({ breaker: createBreaker({ policy }), model: twelveInvoices(), tools: [tool] });
      await runTurn(graph, "Bill Acme.", { thread: "invoices" });
      return sent.length;
    };
    // The operator says invoices are read-only here: the tool runs as a read-only tool would, more than once.
    const overridden = await runs("side_effecting", { tools: { send_invoice: { nature: "read_only" } } });
    expect(overridden).toBe(await runs("read_only", {}));
    expect(overridden).toBeGreaterThan(1);
  });

  it("reports to the listeners registered on the injected breaker, from runs with tightened limits too", async () => {
    const { tool } = invoiceTool();
    const breaker = createBreaker();
    const opened: Verdict[] = [];
    breaker.on("open", ({ verdict }) => opened.push(verdict));
    const { graph } = testGraph({ breaker, model: twelveInvoices(), tools: [tool] });
    await runTurn(graph, "Bill Acme.", { thread: "a" });
    await runTurn(graph, "Bill Acme.", { thread: "b", context: { maxCallsPerRun: 10 } });
    expect(opened.map((v) => v.tool)).toEqual(["send_invoice", "send_invoice"]);
  });
});
