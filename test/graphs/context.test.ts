import { beforeEach, describe, expect, it } from "vitest";
import { InvalidContextError, parseContext, policyFromContext } from "../../graphs/context.js";
import { SYSTEM_PROMPT } from "../../graphs/prompts.js";
import { DEFAULT_POLICY } from "../../breaker/index.js";
import { resetToolFixtures } from "../../tools/index.js";
import { runTurn, testGraph, trajectory } from "../support/graph-helpers.js";

describe("parseContext", () => {
  it("fills the text defaults and leaves every limit to the policy", () => {
    expect(parseContext({}, {})).toEqual({
      model: "scripted:stutter",
      systemPrompt: SYSTEM_PROMPT,
      sessionId: "",
      maxIdenticalCalls: undefined,
      halfOpenMargin: undefined,
      windowSeconds: undefined,
      maxCallsPerWindow: undefined,
      maxCallsPerRun: undefined,
      openSeconds: undefined,
    });
    expect(parseContext(undefined, { OPENAI_API_KEY: "sk-test" }).model).toBe("openai:gpt-4o-mini");
  });

  it("reads Studio form values: numbers as text, blanks as unset", () => {
    const ctx = parseContext({ maxIdenticalCalls: "5", windowSeconds: "", sessionId: "", model: "scripted:clean" }, {});
    expect(ctx.maxIdenticalCalls).toBe(5);
    expect(ctx.windowSeconds).toBeUndefined();
    expect(ctx.sessionId).toBe("");
    expect(ctx.model).toBe("scripted:clean");
  });

  it.each<[string, unknown]>([
    ["maxIdenticalCalls", 0],
    ["halfOpenMargin", -1],
    ["windowSeconds", "soon"],
    ["maxCallsPerWindow", 2.5],
    ["maxCallsPerRun", 1e9],
    ["openSeconds", 0],
    ["model", 42],
  ])("rejects %s = %j with an InvalidContextError naming the field", (field, value) => {
    expect(() => parseContext({ [field]: value }, {})).toThrow(InvalidContextError);
    expect(() => parseContext({ [field]: value }, {})).toThrow(`"${field}"`);
  });
});

describe("policyFromContext", () => {
  const identical = (overrides: Record<string, unknown>) =>
    policyFromContext(parseContext(overrides, {}), {}).detectors.identical_repeat;

  it("allows maxIdenticalCalls identical calls and warns halfOpenMargin calls before the block", () => {
    expect(identical({})).toMatchObject({ warn: 3, block: 4 });
    expect(identical({ maxIdenticalCalls: 6, halfOpenMargin: 2 })).toMatchObject({ warn: 5, block: 7 });
  });

  it("leaves the default policy untouched when the context sets no limit, so CI and the graph agree", () => {
    const policy = policyFromContext(parseContext({}, {}), { send_email: "side_effecting" });
    expect(policy.detectors).toEqual(DEFAULT_POLICY.detectors);
    expect(policy.openSeconds).toBe(DEFAULT_POLICY.openSeconds);
    expect(policy.tools).toEqual({ send_email: { nature: "side_effecting" } });
  });

  it("applies halfOpenMargin alone to the policy's own blocks", () => {
    const policy = policyFromContext(parseContext({ halfOpenMargin: 0 }, {}), {});
    expect(policy.detectors.no_progress).toMatchObject({ warn: DEFAULT_POLICY.detectors.no_progress.block, block: DEFAULT_POLICY.detectors.no_progress.block });
    expect(policy.detectors.run_calls).toMatchObject({ warn: DEFAULT_POLICY.detectors.run_calls.block });
  });

  it("never warns on a first call, whatever the margin", () => {
    expect(identical({ maxIdenticalCalls: 1 })).toMatchObject({ warn: 2, block: 2 });
    expect(identical({ maxIdenticalCalls: 3, halfOpenMargin: 10 })).toMatchObject({ warn: 2, block: 4 });
  });
});

describe("per-run context in the graph", () => {
  beforeEach(() => resetToolFixtures());

  it("maxIdenticalCalls 1 trips at the 2nd identical call, and does not leak into other runs", async () => {
    const { graph } = testGraph();
    const strict = await runTurn(graph, "Overdue?", { context: { model: "scripted:loop", maxIdenticalCalls: 1 }, thread: "strict" });
    expect(trajectory(strict.state.messages)).toEqual(["ran", "refused"]);
    expect(strict.state.halted).toBe(true);

    const lenient = await runTurn(graph, "Overdue?", { context: { model: "scripted:loop" }, thread: "default" });
    expect(trajectory(lenient.state.messages)).toEqual(["ran", "ran+advisory", "refused"]);
  });

  it.each<[string, unknown]>([
    ["maxIdenticalCalls", 0],
    ["windowSeconds", "never"],
  ])("rejects the run when %s is %j, naming the field, before any call", async (field, value) => {
    const { graph, store } = testGraph();
    const run = runTurn(graph, "Overdue?", { context: { model: "scripted:loop", [field]: value }, thread: "bad" });
    await expect(run).rejects.toThrow(InvalidContextError);
    await expect(runTurn(graph, "Overdue?", { context: { [field]: value }, thread: "bad" })).rejects.toThrow(`"${field}"`);
    expect(await store.sessions()).toEqual([]);
  });

  it("rejects an unknown model with the names it can load", async () => {
    const { graph } = testGraph();
    await expect(runTurn(graph, "Hi", { context: { model: "scripted:nope" }, thread: "m" })).rejects.toThrow(
      /Unknown model "scripted:nope".*scripted:<scenario>.*loop/,
    );
  });
});
