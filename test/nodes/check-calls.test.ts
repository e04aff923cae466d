import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { breakerRequests, unbilledUsage } from "../../nodes/check-calls.js";
import { withAdvisoryText, ADVISORY_TAG } from "../../nodes/run-tool.js";
import { pendingCalls } from "../../nodes/tool-calls.js";

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, total_tokens: input + output });
const call = (id: string) => ({ id, name: "lookup", args: { q: id }, type: "tool_call" as const });

describe("usage billing, shared by the graph and the middleware", () => {
  const thread = [
    new HumanMessage("hi"),
    new AIMessage({ content: "", tool_calls: [call("a")], usage_metadata: usage(1, 1) }),
    new ToolMessage({ content: "ok", tool_call_id: "a" }),
    new AIMessage({ content: "Done.", usage_metadata: usage(10, 2), response_metadata: { model_name: "gpt-4o-mini" } }),
    new HumanMessage("again"),
    new AIMessage({ content: "", tool_calls: [call("b"), call("c")], usage_metadata: usage(20, 4), response_metadata: { model_name: "gpt-4o" } }),
  ];

  it("bills the last message with the answers without calls since the previous message with calls, under the latest model", () => {
    expect(unbilledUsage(thread)).toEqual({ inputTokens: 30, outputTokens: 6, model: "gpt-4o" });
  });

  it("puts the unbilled usage on the first request only, and none when told it was billed", () => {
    const calls = pendingCalls(thread.at(-1) as AIMessage);
    const billed = breakerRequests(thread, calls, "run-2", { idOf: (c) => `t/m/${c.id}` });
    expect(billed.map((r) => [r.id, r.run, r.usage?.inputTokens])).toEqual([
      ["t/m/b", "run-2", 30],
      ["t/m/c", "run-2", undefined],
    ]);
    expect(breakerRequests(thread, calls, "run-2", { bill: false }).map((r) => [r.id, r.usage])).toEqual([
      ["b", undefined],
      ["c", undefined],
    ]);
  });
});

describe("the HALF_OPEN advisory, shared by the graph and the middleware", () => {
  it("is a paragraph after text, and one more text block after content blocks", () => {
    expect(withAdvisoryText("rows: 0", "Stop repeating.")).toBe(`rows: 0\n\n${ADVISORY_TAG} Stop repeating.`);
    expect(withAdvisoryText([{ type: "text", text: "rows: 0" }], "Stop repeating.")).toEqual([
      { type: "text", text: "rows: 0" },
      { type: "text", text: `${ADVISORY_TAG} Stop repeating.` },
    ]);
  });
});
