import { MemorySaver, Command, interrupt, type BaseCheckpointSaver } from "@langchain/langgraph";
import { afterAll, beforeAll, beforeEach, expect, it, vi } from "vitest";
import { z } from "zod";
import { createBreaker, RedisStore, type Breaker } from "../../breaker/index.js";
import { buildGraph } from "../../graphs/graph.js";
import { SCENARIOS, ScriptedChatModel } from "../../demo/index.js";
import { defineTool, EXAMPLE_TOOLS, resetToolFixtures, toolNature } from "../../tools/index.js";
import { ReplayChatModel, callsTurn, inspectSession, threadSession, toolMessages, toolReplyProblems, trajectory, userTurn } from "../support/graph-helpers.js";
import { describeRedis, standaloneRedis, uniquePrefix } from "../support/redis-server.js";

type Tools = typeof EXAMPLE_TOOLS;

/** A breaker whose policy states every tool's nature, so the graph uses this very object (and a spy on it sees every check). */
function breakerFor(store: RedisStore, tools: Tools): Breaker {
  return createBreaker({ store, policy: { tools: Object.fromEntries(tools.map((t) => [t.name, { nature: toolNature(t) }])) } });
}

describeRedis("a thread moving between workers: one checkpointer, one Redis", "server", () => {
  let redis: Awaited<ReturnType<typeof standaloneRedis>>;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    redis = await standaloneRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await redis?.stop();
  });
  beforeEach(() => resetToolFixtures());

  /** A worker: its own graph, store connection and breaker over the shared Redis and checkpointer. */
  function worker(prefix: string, saver: BaseCheckpointSaver, model: () => ScriptedChatModel | ReplayChatModel, tools: Tools = EXAMPLE_TOOLS) {
    const store = RedisStore.fromUrl(redis.url, { prefix, failMode: "closed" });
    stores.push(store);
    const breaker = breakerFor(store, tools);
    const checks = vi.spyOn(breaker, "checkBatch");
    const graph = buildGraph({ model: model(), breaker, tools, checkpointer: saver, log: () => {} });
    return { graph, checks, store };
  }

  it("routes a loop exactly as one worker would when every step runs on the other worker, counting each call once", async () => {
    const scenario = SCENARIOS.get("ping_pong")!;
    const model = () => new ScriptedChatModel({ scenario });
    const prefix = uniquePrefix("workers");
    const saver = new MemorySaver();

    // The reference: one worker, start to end.
    const alone = worker(prefix, saver, model);
    const reference = await alone.graph.invoke(userTurn(scenario.prompt), { configurable: { thread_id: "alone" } });

    // The same run, interrupted after every step and resumed by the other worker.
    resetToolFixtures();
    const workers = [worker(prefix, saver, model), worker(prefix, saver, model)];
    const config = { configurable: { thread_id: "moving" }, interruptAfter: ["agent", "tools"] as ("agent" | "tools")[] };
    let state = await workers[0]!.graph.invoke(userTurn(scenario.prompt), config);
    let hops = 0;
    while ((await workers[0]!.graph.getState(config)).next.length > 0) {
      hops++;
      state = await workers[hops % 2]!.graph.invoke(null, config);
    }
    expect(hops).toBeGreaterThan(4);
    expect(state.halted).toBe(true);
    expect(trajectory(state.messages, { detectors: true })).toEqual(trajectory(reference.messages, { detectors: true }));
    expect(toolReplyProblems(state.messages)).toEqual([]);

    // Each model message was checked once, by whichever worker asked the model: resuming never asks the breaker again.
    const asked = state.messages.filter((m: { getType(): string; tool_calls?: unknown[] }) => m.getType() === "ai" && (m.tool_calls?.length ?? 0) > 0).length;
    expect(workers[0]!.checks.mock.calls.length + workers[1]!.checks.mock.calls.length).toBe(asked);
    const moving = await inspectSession(workers[0]!.store, threadSession("moving"));
    const single = await inspectSession(alone.store, threadSession("alone"));
    expect(moving.totalCalls).toBe(toolMessages(state.messages).length);
    expect(moving.totalCalls).toBe(single.totalCalls);
    expect(moving.circuit.findings.map((f) => f.detector)).toEqual(single.circuit.findings.map((f) => f.detector));
  });

  it("completes on another worker a tool call that paused on interrupt(), counted once", async () => {
    let runs = 0;
    const approve = defineTool({ name: "wire_funds", description: "Wire funds once approved.", schema: z.object({ amount: z.number() }), nature: "side_effecting" }, ({ amount }) => {
      runs++;
      return { amount, approved: interrupt({ approve: amount }) };
    });
    const tools = [...EXAMPLE_TOOLS, approve];
    const model = () => new ReplayChatModel([callsTurn({ id: "w1", name: "wire_funds", args: { amount: 500 } })], "Wired.");
    const prefix = uniquePrefix("workers");
    const saver = new MemorySaver();
    const [a, b] = [worker(prefix, saver, model, tools), worker(prefix, saver, model, tools)];
    const config = { configurable: { thread_id: "approval" } };
    await a.graph.invoke(userTurn("Wire 500."), config);
    expect((await a.graph.getState(config)).next).toEqual(["tools"]);

    const done = await b.graph.invoke(new Command({ resume: true }), config);
    expect(JSON.parse(String(toolMessages(done.messages)[0]!.content))).toEqual({ amount: 500, approved: true });
    expect(done.messages.at(-1)!.content).toBe("Wired.");
    expect(runs).toBe(2);
    expect(a.checks).toHaveBeenCalledTimes(1);
    expect(b.checks).not.toHaveBeenCalled();
    const session = await inspectSession(b.store, threadSession("approval"));
    expect(session.totalCalls).toBe(1);
    expect(session.window[0]!.outcome?.kind).toBe("ok");
  });
});
