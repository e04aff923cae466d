import { GraphRecursionError } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../breaker/index.js";
import { recursionLimitFor } from "../../nodes/step-budget.js";
import { STEP_LIMIT } from "../../nodes/circuit-fallback.js";
import { ReplayChatModel, callsTurn, frameOf, inspectSession, runTurn, testGraph, textOf, toolMessages, toolReplyProblems, trajectory } from "../support/graph-helpers.js";
import { runawaySql } from "../support/runaway.js";

/** A model that never repeats itself and never stops on its own. */
const runaway = () => new ReplayChatModel(Array.from({ length: 200 }, (_, n) => callsTurn({ name: "query_database", args: { sql: runawaySql(n) } })));

describe("the recursion limit", () => {
  it("is carried by the compiled graph, derived from the deployment's run limit", () => {
    expect(testGraph().graph.config?.recursionLimit).toBe(recursionLimitFor(DEFAULT_POLICY));
    expect(testGraph({ env: { BREAKER_MAX_CALLS_PER_RUN: "70" } }).graph.config?.recursionLimit).toBe(142);
  });

  it("lets the breaker's run limit end a runaway that never repeats, through circuit_fallback, with no limit from the client", async () => {
    // The operator's run limit of 20 is the one in force (the session's rate limit is raised out of the way).
    const { graph, store } = testGraph({ model: runaway(), env: { BREAKER_MAX_CALLS_PER_RUN: "20", BREAKER_MAX_CALLS_PER_WINDOW: "100" } });
    const { nodes, state } = await runTurn(graph, "Audit every order.", { thread: "runaway" });
    expect(nodes.at(-1)).toBe("circuit_fallback");
    expect(state.halted).toBe(true);
    expect(toolReplyProblems(state.messages)).toEqual([]);
    const steps = trajectory(state.messages, { detectors: true });
    // 19 calls ran, the 20th was refused by the run limit: far past the ~12 LangGraph's default limit of 25 allows.
    expect(steps.filter((s) => s.startsWith("ran"))).toHaveLength(19);
    expect(steps.at(-1)).toBe("refused:run_calls");
    expect((await inspectSession(store, state.sessionId)).totalCalls).toBe(20);
  });

  it("ends gracefully when the client gives the run a lower recursion limit: every call answered, a final answer", async () => {
    const { graph } = testGraph({ model: runaway() });
    const { nodes, state } = await runTurn(graph, "Audit every order.", { thread: "short", recursionLimit: 9 });
    expect(nodes.at(-1)).toBe("circuit_fallback");
    expect(nodes.length).toBeLessThan(9);
    expect(state.halted).toBe(true);
    expect(toolReplyProblems(state.messages)).toEqual([]);
    const last = toolMessages(state.messages).at(-1)!;
    expect(frameOf(last)).toMatchObject({ error: STEP_LIMIT, ran: false });
    expect(textOf(state.messages.at(-1)!)).toMatch(/about to reach its step limit \(recursion limit 9\)/);
  });

  it.each([3, 4, 5, 6, 7, 8, 25])("never ends in GraphRecursionError with a client limit of %d", async (recursionLimit) => {
    const { graph } = testGraph({ model: runaway() });
    const outcome = await runTurn(graph, "Audit every order.", { thread: `limit-${recursionLimit}`, recursionLimit }).catch((error: unknown) => error);
    expect(outcome).not.toBeInstanceOf(GraphRecursionError);
    expect(outcome).toMatchObject({ state: { halted: true } });
  });

  it("cannot end gracefully under a client limit of 2 (the model's step and circuit_fallback leave no room): LangGraph's own error", async () => {
    const { graph } = testGraph({ model: runaway() });
    await expect(runTurn(graph, "Audit every order.", { thread: "limit-2", recursionLimit: 2 })).rejects.toBeInstanceOf(GraphRecursionError);
  });
});
