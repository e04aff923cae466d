import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toolReplyProblems } from "./graph-helpers.js";

const ask = (...ids: string[]) =>
  new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "t", args: {}, type: "tool_call" as const })) });
const reply = (id: string) => new ToolMessage({ tool_call_id: id, content: "ok" });

// The scenario tests rely on this check; prove it can fail.
describe("toolReplyProblems", () => {
  it("accepts a history where every call is answered right after its message, in any order", () => {
    expect(toolReplyProblems([new HumanMessage("q"), ask("a", "b"), reply("b"), reply("a"), new AIMessage("done")])).toEqual([]);
  });

  it.each([
    ["a missing reply", [ask("a", "b"), reply("a"), new AIMessage("done")]],
    ["a reply to another call", [ask("a"), reply("x")]],
    ["a reply after the next model turn", [ask("a"), new AIMessage("done"), reply("a")]],
    ["a duplicated reply", [ask("a"), reply("a"), reply("a")]],
    ["a duplicated call id", [ask("a", "a"), reply("a"), reply("a")]],
  ])("flags %s", (_what, messages) => {
    expect(toolReplyProblems(messages)).not.toEqual([]);
  });
});
