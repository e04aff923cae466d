import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, parsePolicy } from "../../breaker/index.js";
import { recursionLimitFor, stepsLeft } from "../../nodes/step-budget.js";

const at = (step: number, recursionLimit: number) => ({ recursionLimit, metadata: { langgraph_step: step } });

describe("recursionLimitFor", () => {
  it("leaves room for the policy's run limit: an agent and a tools step per call, then the refusal and circuit_fallback", () => {
    expect(recursionLimitFor(DEFAULT_POLICY)).toBe(2 * DEFAULT_POLICY.detectors.run_calls.block + 2);
  });

  it("follows the highest run limit any nature or tool of the policy states", () => {
    const policy = parsePolicy({ detectors: { run_calls: { warn: 5, block: 10 } }, tools: { crawler: { detectors: { run_calls: { block: 80 } } } } });
    expect(recursionLimitFor(policy)).toBe(162);
  });
});

describe("stepsLeft", () => {
  const human = new HumanMessage("Go.");
  const round = (id: string) => [new AIMessage({ content: "", tool_calls: [{ id, name: "t", args: {}, type: "tool_call" }] }), new ToolMessage({ tool_call_id: id, content: "ok" })];

  it("counts from the turn's first model call, two steps per earlier round", () => {
    // A turn that started at step 5: its third model call runs at step 9.
    // It must be done by step 5 + 10 - 2: LangGraph refuses even a last step that would end the run.
    expect(stepsLeft([human, ...round("a"), ...round("b")], at(9, 10))).toBe(5 + 10 - 2 - 9);
    expect(stepsLeft([human], at(5, 10))).toBe(8);
  });

  it("counts only the current turn", () => {
    const earlier = [new HumanMessage("Before."), ...round("x"), new AIMessage("Answer.")];
    expect(stepsLeft([...earlier, human], at(40, 10))).toBe(8);
  });

  it("knows nothing outside a graph run", () => {
    expect(stepsLeft([human], {})).toBeUndefined();
  });
});
