import { ToolMessage } from "@langchain/core/messages";
import { Command, INTERRUPT, MemorySaver, interrupt } from "@langchain/langgraph";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../tools/index.js";
import { ReplayChatModel, callsTurn, inspectSession, testGraph, textOf, threadSession, toolMessages, toolReplyProblems, userTurn } from "../support/graph-helpers.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });

describe("LangGraph's tool semantics in the guarded graph", () => {
  it("pauses on a tool's interrupt() and completes it when the run is resumed with Command({ resume })", async () => {
    let runs = 0;
    const approve = defineTool(
      { name: "refund_order", description: "Refund an order after a person approves.", schema: z.object({ order: z.string() }), nature: "side_effecting" },
      ({ order }) => {
        runs++;
        const answer = interrupt({ question: `Refund ${order}?` }) as string;
        return { order, refunded: answer === "yes" };
      },
    );
    const model = new ReplayChatModel([callsTurn({ id: "r1", name: "refund_order", args: { order: "ord_001_001" } })], "Refunded.");
    const { graph, store } = testGraph({ model, tools: [approve], checkpointer: new MemorySaver() });

    const paused = await graph.invoke(userTurn("Refund my first order."), thread("refund"));
    expect((paused as Record<string, unknown>)[INTERRUPT]).toEqual([expect.objectContaining({ value: { question: "Refund ord_001_001?" } })]);
    const snapshot = await graph.getState(thread("refund"));
    expect(snapshot.next).toEqual(["tools"]);
    expect(toolMessages(snapshot.values.messages)).toEqual([]);

    const done = await graph.invoke(new Command({ resume: "yes" }), thread("refund"));
    const [reply] = toolMessages(done.messages);
    expect(JSON.parse(textOf(reply!))).toEqual({ order: "ord_001_001", refunded: true });
    expect(done.messages.at(-1)!.content).toBe("Refunded.");
    expect(toolReplyProblems(done.messages)).toEqual([]);
    // The tool body ran again on resume, as LangGraph documents; the breaker counted the call once and saw its outcome.
    expect(runs).toBe(2);
    const session = await inspectSession(store, threadSession("refund"));
    expect(session.totalCalls).toBe(1);
    expect(session.window[0]!.outcome?.kind).toBe("ok");
  });

  it("applies a Command a tool returns: its state update and its reply reach the thread as they are", async () => {
    const stop = defineTool({ name: "close_ticket", description: "Close the ticket.", schema: z.object({}), nature: "side_effecting" }, (_input, { toolCallId }) =>
      new Command({ update: { messages: [new ToolMessage({ tool_call_id: toolCallId, content: "ticket closed" })], halted: false } }),
    );
    const model = new ReplayChatModel([callsTurn({ id: "k1", name: "close_ticket", args: {} })], "Closed.");
    const { graph } = testGraph({ model, tools: [stop] });
    const out = await graph.invoke(userTurn("Close it."));
    const replies = toolMessages(out.messages);
    expect(replies.map((m) => [m.tool_call_id, textOf(m)])).toEqual([["k1", "ticket closed"]]);
    expect(JSON.stringify(out.messages)).not.toContain("lg_name");
    expect(out.messages.at(-1)!.content).toBe("Closed.");
  });

  it("aborts a tool in flight when the run is cancelled", async () => {
    const seen: { started: boolean; aborted: boolean } = { started: false, aborted: false };
    const slow = defineTool({ name: "long_export", description: "Exports for a while.", schema: z.object({}), nature: "read_only", timeoutMs: 60_000 }, async (_input, { signal }) => {
      seen.started = true;
      await new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve()));
      seen.aborted = signal?.aborted ?? false;
      return "exported";
    });
    const model = new ReplayChatModel([callsTurn({ id: "x1", name: "long_export", args: {} })]);
    const { graph } = testGraph({ model, tools: [slow], checkpointer: new MemorySaver() });
    const cancel = new AbortController();
    const run = graph.invoke(userTurn("Export everything."), { ...thread("cancel"), signal: cancel.signal });
    while (!seen.started) await sleep(5);
    cancel.abort();
    await expect(run).rejects.toThrow(/abort/i);
    expect(seen.aborted).toBe(true);
    // Nothing was written for the cancelled step: the call stays unanswered, the thread stops before it.
    expect((await graph.getState(thread("cancel"))).next).toEqual(["tools"]);
  });
});
