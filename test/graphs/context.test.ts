import { MemorySaver } from "@langchain/langgraph";
import { beforeEach, describe, expect, it } from "vitest";
import { createBreaker, DEFAULT_POLICY, MemoryStore, type Policy } from "../../breaker/index.js";
import { CONTEXT_FIELDS, InvalidContextError, parseContext } from "../../graphs/context.js";
import { knobLimits } from "../../graphs/limit-knobs.js";
import { createRunResolver, type GraphDeps } from "../../graphs/run-resolver.js";
import { SYSTEM_PROMPT } from "../../graphs/prompts.js";
import { EXAMPLE_TOOLS, resetToolFixtures } from "../../tools/index.js";
import { configWith, runTurn, stateWith, testGraph, trajectory, userTurn } from "../support/graph-helpers.js";

describe("parseContext", () => {
  it("fills the text defaults and leaves every limit to the deployment's policy", () => {
    expect(parseContext({}, {})).toEqual({
      model: "scripted:stutter",
      systemPrompt: SYSTEM_PROMPT,
      sessionId: "",
      onTrip: "end",
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
    const ctx = parseContext({ maxIdenticalCalls: "2", windowSeconds: "", sessionId: "", model: "scripted:clean" }, {});
    expect(ctx.maxIdenticalCalls).toBe(2);
    expect(ctx.windowSeconds).toBeUndefined();
    expect(ctx.sessionId).toBe("");
    expect(ctx.model).toBe("scripted:clean");
  });

  it("refuses a misspelled knob, naming it and the fields it accepts", () => {
    const refuse = () => parseContext({ maxIdenticalCall: 2, model: "scripted:loop", retries: 3 }, {});
    expect(refuse).toThrow(InvalidContextError);
    expect(refuse).toThrow(expect.objectContaining({ code: "UNKNOWN_CONTEXT_FIELD", field: "maxIdenticalCall,retries" }));
    expect(refuse).toThrow(`Unknown context fields "maxIdenticalCall", "retries". This graph accepts: ${CONTEXT_FIELDS.join(", ")}.`);
  });

  it.each<[string, unknown, string]>([
    ["maxIdenticalCalls", 0, "must be at least 1"],
    ["halfOpenMargin", -1, "must be at least 0"],
    ["windowSeconds", "soon", 'must be a number (got "soon")'],
    ["maxCallsPerWindow", 2.5, "must be a whole number"],
    ["maxCallsPerRun", true, "must be a number (got true)"],
    ["openSeconds", { seconds: 5 }, "must be a number (got an object)"],
    ["model", 42, "must be a string (got 42)"],
    ["systemPrompt", ["a"], "must be a string (got an array)"],
  ])("refuses %s = %j, naming the field and the type it needs", (field, value, says) => {
    const refuse = () => parseContext({ [field]: value }, {});
    expect(refuse).toThrow(expect.objectContaining({ code: "INVALID_CONTEXT_VALUE", field }));
    expect(refuse).toThrow(`Context field "${field}" ${says}`);
  });

  it("refuses a context that is not an object", () => {
    expect(() => parseContext("maxCallsPerRun=5", {})).toThrow(expect.objectContaining({ code: "INVALID_CONTEXT_VALUE", field: "context" }));
  });
});

/** The default deployment's ceilings (and floors): the breaker's default policy. */
const CEILINGS = knobLimits(DEFAULT_POLICY);

/** The policy a run with `context` gets from a graph built with `deps`. */
function runPolicy(context: Record<string, unknown>, deps: GraphDeps = {}): Policy {
  const { resolve, checkContext } = createRunResolver({ tools: EXAMPLE_TOOLS, store: new MemoryStore(), log: () => {}, ...deps });
  checkContext(context);
  return resolve(stateWith([]), configWith(context, "t")).breaker.policy;
}

describe("what a run's context may change", () => {
  const identical = (context: Record<string, unknown>) => runPolicy(context).detectors.identical_repeat;

  it("leaves the deployment's policy as it is when the context sets no limit, so CI and the graph agree", () => {
    const policy = runPolicy({});
    expect(policy.detectors).toEqual(DEFAULT_POLICY.detectors);
    expect(policy.openSeconds).toBe(DEFAULT_POLICY.openSeconds);
    expect(policy.tools.send_email).toEqual({ nature: "side_effecting" });
  });

  it("tightens: maxIdenticalCalls allowed calls, the next refused, no detector it drives loosened", () => {
    expect(identical({})).toEqual(DEFAULT_POLICY.detectors.identical_repeat);
    expect(runPolicy({ maxIdenticalCalls: 1 }).detectors.identical_repeat).toMatchObject({ warn: 2, block: 2 });
    expect(runPolicy({ maxIdenticalCalls: 1 }).detectors.no_progress).toMatchObject({ warn: 2, block: 2 });
    // The knob drives no_progress too: where the deployment's own no_progress block is stricter, it stays.
    const breaker = createBreaker({ policy: { detectors: { identical_repeat: { warn: 4, block: 6 }, no_progress: { warn: 2, block: 3 } } } });
    const policy = runPolicy({ maxIdenticalCalls: 4 }, { breaker });
    expect(policy.detectors.identical_repeat.block).toBe(5);
    expect(policy.detectors.no_progress.block).toBe(3);
  });

  it("moves only warnings with halfOpenMargin, never a block, and never warns on a first call", () => {
    const policy = runPolicy({ halfOpenMargin: 0 });
    expect(policy.detectors.no_progress).toMatchObject({ warn: DEFAULT_POLICY.detectors.no_progress.block, block: DEFAULT_POLICY.detectors.no_progress.block });
    expect(policy.detectors.run_calls).toMatchObject({ warn: DEFAULT_POLICY.detectors.run_calls.block, block: DEFAULT_POLICY.detectors.run_calls.block });
    expect(identical({ maxIdenticalCalls: 1 })).toMatchObject({ warn: 2, block: 2 });
    expect(identical({ maxIdenticalCalls: CEILINGS.maxIdenticalCalls, halfOpenMargin: 10 })).toMatchObject({ warn: 2, block: CEILINGS.maxIdenticalCalls + 1 });
  });

  it("accepts limits at or under the ceilings and durations at or over the floors", () => {
    const policy = runPolicy({ maxCallsPerRun: CEILINGS.maxCallsPerRun, maxCallsPerWindow: 10, windowSeconds: 120, openSeconds: 600 });
    expect(policy.detectors.run_calls.block).toBe(CEILINGS.maxCallsPerRun);
    expect(policy.detectors.call_rate).toMatchObject({ block: 10, windowSeconds: 120 });
    expect(policy.openSeconds).toBe(600);
  });

  it.each<[string, number, string, string]>([
    ["maxCallsPerRun", 100_000, `above this deployment's ceiling of ${CEILINGS.maxCallsPerRun}`, "BREAKER_MAX_CALLS_PER_RUN"],
    ["maxCallsPerWindow", CEILINGS.maxCallsPerWindow + 1, `above this deployment's ceiling of ${CEILINGS.maxCallsPerWindow}`, "BREAKER_MAX_CALLS_PER_WINDOW"],
    ["maxIdenticalCalls", CEILINGS.maxIdenticalCalls + 1, `above this deployment's ceiling of ${CEILINGS.maxIdenticalCalls}`, "BREAKER_MAX_IDENTICAL_CALLS"],
    ["windowSeconds", CEILINGS.windowSeconds - 1, `below this deployment's floor of ${CEILINGS.windowSeconds}`, "BREAKER_WINDOW_SECONDS"],
    ["openSeconds", 1, `below this deployment's floor of ${CEILINGS.openSeconds}`, "BREAKER_OPEN_SECONDS"],
  ])("refuses %s = %d, naming the field, the limit and how the operator sets it", (field, value, says, variable) => {
    const refuse = () => runPolicy({ [field]: value });
    expect(refuse).toThrow(InvalidContextError);
    expect(refuse).toThrow(expect.objectContaining({ field, code: says.startsWith("above") ? "ABOVE_CEILING" : "BELOW_FLOOR" }));
    expect(refuse).toThrow(`Context field "${field}" is ${value}, ${says}`);
    expect(refuse).toThrow(variable);
  });

  it("holds the context to the operator's ceilings from the environment", () => {
    const env = { BREAKER_MAX_CALLS_PER_RUN: "80", BREAKER_OPEN_SECONDS: "120" };
    expect(runPolicy({}, { env }).detectors.run_calls.block).toBe(80);
    expect(runPolicy({ maxCallsPerRun: 70 }, { env }).detectors.run_calls.block).toBe(70);
    expect(() => runPolicy({ maxCallsPerRun: 90 }, { env })).toThrow(/ceiling of 80/);
    expect(runPolicy({ openSeconds: 200 }, { env }).openSeconds).toBe(200);
  });

  it("holds the context to an injected breaker's policy", () => {
    const breaker = createBreaker({ policy: { detectors: { run_calls: { warn: 8, block: 10 } } } });
    expect(runPolicy({ maxCallsPerRun: 10 }, { breaker }).detectors.run_calls.block).toBe(10);
    expect(() => runPolicy({ maxCallsPerRun: 11 }, { breaker })).toThrow(/ceiling of 10/);
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

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["a misspelled knob", { maxIdenticalCall: 1 }, /Unknown context field "maxIdenticalCall"/],
    ["a value of the wrong type", { windowSeconds: "never" }, /"windowSeconds" must be a number/],
    ["a limit above the ceiling", { maxCallsPerRun: 100_000 }, new RegExp(`"maxCallsPerRun" is 100000, above this deployment's ceiling of ${DEFAULT_POLICY.detectors.run_calls.block}`)],
    ["a caller-named session the operator did not allow", { sessionId: "someone-else" }, /"sessionId" is not accepted by this deployment/],
  ])("refuses a run with %s before it writes anything", async (_what, context, message) => {
    const { graph, store } = testGraph({ checkpointer: new MemorySaver() });
    const config = { context: { model: "scripted:loop", ...context } as never, configurable: { thread_id: "refused" } };
    await expect(graph.invoke(userTurn("Overdue?"), config)).rejects.toThrow(message);
    await expect(graph.invoke(userTurn("Overdue?"), config)).rejects.toBeInstanceOf(InvalidContextError);
    // Not even the user's message reached the thread, and the breaker saw nothing.
    expect((await graph.getState({ configurable: { thread_id: "refused" } })).values).toEqual({});
    expect(await store.sessions()).toEqual([]);
  });

  it("rejects an unknown model with the names it can load", async () => {
    const { graph } = testGraph();
    await expect(runTurn(graph, "Hi", { context: { model: "scripted:nope" }, thread: "m" })).rejects.toThrow(
      /Unknown model "scripted:nope".*scripted:<scenario>.*loop/,
    );
  });

  it("fails a run whose model's provider package is not installed, naming the package to install", async () => {
    const { graph } = testGraph();
    await expect(runTurn(graph, "Hi", { context: { model: "anthropic:claude-sonnet-4-5" }, thread: "m" })).rejects.toThrow(
      /needs the package @langchain\/anthropic.*npm install @langchain\/anthropic/,
    );
  });
});
