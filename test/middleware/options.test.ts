import { beforeEach, describe, expect, it } from "vitest";
import { BreakerError, createBreaker, MemoryStore, parsePolicy, type Breaker } from "../../breaker/index.js";
import {
  LoopBreakerOptionsError,
  loopBreakerMiddleware,
  type BreakerVerdictEvent,
} from "../../middleware/index.js";
import { resetToolFixtures } from "../../tools/index.js";
import { callsTurn, inspectSession, ReplayChatModel, trajectory } from "../support/graph-helpers.js";
import { runAgent, scriptedModel, testAgent } from "./support/agent.js";

const FAILING_SQL = callsTurn({ name: "query_database", args: { sql: "SELECT * FROM overdue_invoices" } });

/** A breaker that counts the calls of its API, to show how the middleware uses it. */
function counting(breaker: Breaker) {
  const calls = { check: 0, checkBatch: [] as number[], complete: 0 };
  const counted: Breaker = {
    ...breaker,
    check: (s, c) => (calls.check++, breaker.check(s, c)),
    checkBatch: (s, cs) => (calls.checkBatch.push(cs.length), breaker.checkBatch(s, cs)),
    complete: (s, id, o) => (calls.complete++, breaker.complete(s, id, o)),
  };
  return { breaker: counted, calls };
}

describe("loopBreakerMiddleware options", () => {
  beforeEach(() => resetToolFixtures());

  it("refuses options that cannot work, naming the fix", () => {
    const invalid = (options: unknown) => () => loopBreakerMiddleware(options as never);
    expect(invalid({ exitBehavior: "stop" })).toThrow(LoopBreakerOptionsError);
    expect(invalid({ exitBehavior: "stop" })).toThrow('Invalid exitBehavior "stop": use "end", "error" or "continue".');
    expect(invalid({ breaker: createBreaker(), policy: {} })).toThrow(/Pass either `breaker`, or `store` and `policy`/);
    expect(invalid({ breaker: {} })).toThrow(/`breaker` must be a breaker made by createBreaker/);
    expect(invalid({ exitbehavior: "end" })).toThrow(/Unknown loopBreakerMiddleware option\(s\): exitbehavior/);
    expect(invalid({ sessionId: "" })).toThrow(/`sessionId` must be a non-empty string/);
    expect(invalid("end")).toThrow(/takes an options object/);
    try {
      loopBreakerMiddleware({ exitBehavior: "stop" as never });
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_MIDDLEWARE_OPTIONS" });
    }
    // A bad policy fails when the agent is built, with the breaker's own error naming the field.
    expect(invalid({ policy: { detectors: { identical_repeat: { warn: 5, block: 2 } } } })).toThrow(BreakerError);
  });

  it("works with no argument: each middleware gets its own MemoryStore and the default policy", async () => {
    const first = await runAgent(testAgent({ model: scriptedModel("stutter") }), "Owner of Acme?", { thread: "same-thread" });
    const second = await runAgent(testAgent({ model: scriptedModel("stutter") }), "Owner of Acme?", { thread: "same-thread" });
    // Same thread id, separate stores: the second agent starts from a clean session.
    expect(trajectory(second.messages)).toEqual(trajectory(first.messages));
    expect(trajectory(first.messages).at(-1)).toBe("refused");
  });

  it("uses the thread as the session; a run without a thread gets a session of its own", async () => {
    const store = new MemoryStore();
    const agent = testAgent({ model: scriptedModel("clean"), breaker: { store } });
    const threaded = await runAgent(agent, "Revenue?", { thread: "thread-a" });
    expect(threaded.breakerSessionId).toBe("thread-a");
    expect((await inspectSession(store, "thread-a")).totalCalls).toBe(2);

    const loose = await runAgent(testAgent({ model: scriptedModel("clean"), breaker: { store }, checkpointer: false }), "Revenue?");
    expect(loose.breakerSessionId).toMatch(/^run-[0-9a-f-]{36}$/);
    expect((await inspectSession(store, loose.breakerSessionId)).totalCalls).toBe(2);
  });

  it("takes the session from a function of the runtime, so several threads can share one", async () => {
    const store = new MemoryStore();
    const agent = testAgent({
      model: scriptedModel("clean"),
      breaker: { store, sessionId: (rt) => `user:${String(rt.configurable?.user_id ?? "")}` },
    });
    for (const thread of ["t1", "t2"]) {
      await agent.invoke({ messages: [{ role: "user", content: "Revenue?" }] }, { configurable: { thread_id: thread, user_id: "u7" } });
    }
    expect((await inspectSession(store, "user:u7")).totalCalls).toBe(4);
    expect((await inspectSession(store, "t1")).totalCalls).toBe(0);
  });

  it("checks all calls of one model message in one checkBatch and reports every outcome", async () => {
    const { breaker, calls } = counting(createBreaker());
    const fanout = callsTurn(
      { name: "query_crm", args: { company_name: "Acme Corp" } },
      { name: "get_financials", args: { account_id: "acc_001" } },
      { name: "list_orders", args: { customer_id: "cust_001", page: 1, page_size: 10 } },
    );
    const model = new ReplayChatModel([fanout, callsTurn({ name: "kb_search", args: { query: "refund policy", offset: 0, limit: 5 } })]);
    await runAgent(testAgent({ model, breaker: { breaker } }), "Everything on Acme.", { thread: "fanout" });

    expect(calls.checkBatch).toEqual([3, 1]);
    expect(calls.check).toBe(0);
    expect(calls.complete).toBe(4);
  });

  it("emits the breaker's events on an injected breaker, and the graph's custom stream event", async () => {
    const breaker = createBreaker();
    const events: string[] = [];
    breaker.on("halfOpen", ({ sessionId, verdict }) => events.push(`halfOpen ${sessionId} ${verdict.tool}`));
    breaker.on("open", ({ sessionId, verdict }) => events.push(`open ${sessionId} ${verdict.tool}`));
    const custom: unknown[] = [];
    await runAgent(testAgent({ model: new ReplayChatModel([FAILING_SQL, FAILING_SQL, FAILING_SQL]), breaker: { breaker } }), "Overdue?", {
      thread: "events",
      streamCustom: custom,
    });

    expect(events).toEqual(["halfOpen events query_database", "open events query_database"]);
    const verdictEvents = custom as BreakerVerdictEvent[];
    expect(verdictEvents.map((e) => [e.type, e.sessionId, e.verdicts.map((v) => v.state), e.halted ?? false])).toEqual([
      ["breaker_verdict", "events", ["CLOSED"], false],
      ["breaker_verdict", "events", ["HALF_OPEN"], false],
      ["breaker_verdict", "events", ["OPEN"], true],
    ]);
  });

  it("counts a model that reuses tool call ids: every call gets an id of its own", async () => {
    const reused = [0, 1, 2, 3].map(() => callsTurn({ id: "call_0", name: "query_database", args: { sql: "SELECT * FROM overdue_invoices" } }));
    const out = await runAgent(testAgent({ model: new ReplayChatModel(reused) }), "Overdue?", { thread: "ids" });
    expect(trajectory(out.messages)).toEqual(["ran", "ran+advisory", "refused"]);
  });

  it("keeps createAgent's error semantics for a throwing tool, and still tells the breaker", async () => {
    const store = new MemoryStore();
    const agent = testAgent({ model: new ReplayChatModel([FAILING_SQL]), breaker: { store }, errorsAsReplies: false });
    await expect(runAgent(agent, "Overdue?", { thread: "throws" })).rejects.toThrow(/relation "overdue_invoices" does not exist/);
    const session = await inspectSession(store, "throws");
    expect(session.window.map((c) => c.outcome?.kind)).toEqual(["error"]);
  });
});
