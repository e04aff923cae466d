import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import type { Verdict } from "../../breaker/index.js";
import { route } from "../../nodes/route.js";
import { breakerCallId } from "../../nodes/tool-calls.js";
import { stateWith } from "../support/graph-helpers.js";

const ask = (id: string, ...calls: string[]) =>
  new AIMessage({ id, content: "", tool_calls: calls.map((c) => ({ id: c, name: "query_crm", args: {}, type: "tool_call" as const })) });

/** A verdict on call `callId` of message `messageId`, as the agent step writes it. */
function verdict(messageId: string, callId: string, allowed = true): Verdict {
  return {
    callId: breakerCallId("thread-1", messageId, callId),
    tool: "query_crm",
    step: 1,
    state: allowed ? "CLOSED" : "OPEN",
    allowed,
    findings: [],
  };
}

const human = new HumanMessage({ id: "h-1", content: "Do the thing." });

describe("route, a pure function of the state", () => {
  it.each<[string, BaseMessage[]]>([
    ["an empty history", []],
    ["a last message from the user", [human]],
    ["an AIMessage without tool calls", [human, new AIMessage("The answer.")]],
    ["an AIMessage with an empty tool_calls list", [human, new AIMessage({ content: "x", tool_calls: [] })]],
    ["a last ToolMessage", [human, ask("m1", "c1"), new ToolMessage({ tool_call_id: "c1", content: "{}" })]],
  ])("ends the run on %s", (_what, messages) => {
    expect(route(stateWith(messages))).toBe(END);
  });

  it("sends calls whose verdicts all allow them to tools", () => {
    const state = stateWith([human, ask("m1", "c1", "c2")], "", [verdict("m1", "c1"), verdict("m1", "c2")]);
    expect(route(state)).toBe("tools");
  });

  it("sends the whole batch to circuit_fallback when one verdict refuses", () => {
    const state = stateWith([human, ask("m1", "c1", "c2")], "", [verdict("m1", "c1"), verdict("m1", "c2", false)]);
    expect(route(state)).toBe("circuit_fallback");
  });

  it("ends through circuit_fallback when the agent step found the steps running out, whatever the verdicts", () => {
    const state = { ...stateWith([human, ask("m1", "c1")], "", [verdict("m1", "c1")]), outOfSteps: true };
    expect(route(state)).toBe("circuit_fallback");
  });

  it('with onTrip "ask", sends a refused batch to circuit_review, and nothing else changes', () => {
    const refused = stateWith([human, ask("m1", "c1", "c2")], "", [verdict("m1", "c1"), verdict("m1", "c2", false)]);
    expect(route(refused, "ask")).toBe("circuit_review");
    expect(route(refused, "end")).toBe("circuit_fallback");
    expect(route(stateWith([human, ask("m1", "c1")], "", [verdict("m1", "c1")]), "ask")).toBe("tools");
    expect(route(stateWith([human, new AIMessage("The answer.")]), "ask")).toBe(END);
    // Steps running out is no loop a person could lift: it always ends.
    expect(route({ ...refused, outOfSteps: true }, "ask")).toBe("circuit_fallback");
  });

  it("ignores verdicts about another message (an edited thread): tools checks that message first", () => {
    // Refusals of an earlier message, or of other call ids, say nothing about these calls.
    expect(route(stateWith([human, ask("m2", "c1")], "", [verdict("m1", "c1", false)]))).toBe("tools");
    expect(route(stateWith([human, ask("m1", "c9")], "", [verdict("m1", "c1", false)]))).toBe("tools");
    expect(route(stateWith([human, ask("m1", "c1", "c2")], "", [verdict("m1", "c1", false)]))).toBe("tools");
  });
});
