import { beforeEach, describe, expect, it } from "vitest";
import { resetToolFixtures } from "../../tools/index.js";
import {
  inspectSession,
  lastTurn,
  runTurn,
  testGraph,
  textOf,
  threadSession,
  threadedGraph,
  toolMessages,
  toolReplyProblems,
  trajectory,
  userTurn,
} from "../support/graph-helpers.js";

const byDetector = { detectors: true };

describe("a second user turn after a trip", () => {
  beforeEach(() => resetToolFixtures());

  it("gets a fresh loop window on the same thread and session", async () => {
    const { graph, store } = threadedGraph();
    const thread = { context: { model: "scripted:loop" }, thread: "turns-1" };
    const first = await runTurn(graph, "How many invoices are overdue?", thread);
    expect(first.state.halted).toBe(true);

    const second = await runTurn(graph, "Try again, please.", thread);
    const turn = lastTurn(second.state.messages);
    // The first call of the new turn runs: a real result, not a breaker frame.
    const firstReply = toolMessages(turn)[0]!;
    expect(textOf(firstReply)).toMatch(/^Error: query_database failed/);
    expect(textOf(firstReply)).not.toContain("CIRCUIT_BREAKER_TRIPPED");
    // The same loop plays out exactly as in the first turn, then trips again.
    expect(trajectory(turn)).toEqual(trajectory(lastTurn(first.state.messages)));
    expect(second.state.halted).toBe(true);

    // One conversation, one session, a valid history across both turns.
    expect(second.state.messages.filter((m) => m.getType() === "human")).toHaveLength(2);
    expect(second.state.sessionId).toBe(threadSession("turns-1"));
    expect(first.state.sessionId).toBe(threadSession("turns-1"));
    expect(toolReplyProblems(second.state.messages)).toEqual([]);
    expect((await inspectSession(store, threadSession("turns-1"))).totalCalls).toBe(toolMessages(second.state.messages).length);
  });

  it("keeps the loop window through a harness's 'continue' nudge or the same message sent again", async () => {
    const { graph, store } = threadedGraph();
    const thread = { context: { model: "scripted:loop" }, thread: "turns-nudge" };
    const first = await runTurn(graph, "How many invoices are overdue?", thread);
    expect(first.state.halted).toBe(true);
    for (const nudge of ["Please continue.", "How many invoices are overdue?"]) {
      const next = await runTurn(graph, nudge, thread);
      // Still the same run: the circuit is open and the first call of the nudge's turn is refused.
      expect(trajectory(lastTurn(next.state.messages))).toEqual(["refused"]);
      expect(toolReplyProblems(next.state.messages)).toEqual([]);
    }
    expect((await inspectSession(store, threadSession("turns-nudge"))).circuit.state).toBe("OPEN");
  });

  it("can finish normally, clearing halted", async () => {
    const { graph } = threadedGraph();
    await runTurn(graph, "How many invoices are overdue?", { context: { model: "scripted:loop" }, thread: "turns-2" });
    const second = await runTurn(graph, "What was Acme Corp's revenue?", { context: { model: "scripted:clean" }, thread: "turns-2" });
    expect(second.state.halted).toBe(false);
    expect(trajectory(lastTurn(second.state.messages))).toEqual(["ran", "ran"]);
    expect(second.nodes).not.toContain("circuit_fallback");
  });

  it("is still refused by a session-wide limit", async () => {
    const { graph } = threadedGraph();
    const limits = { maxCallsPerWindow: 3 };
    // Legitimate paging, so the session-wide window is the only limit it meets.
    const first = await runTurn(graph, "List the orders.", { context: { model: "scripted:pagination", ...limits }, thread: "turns-3" });
    expect(trajectory(first.state.messages, byDetector).at(-1)).toBe("refused:call_rate");

    const second = await runTurn(graph, "What was Acme Corp's revenue?", {
      context: { model: "scripted:clean", ...limits },
      thread: "turns-3",
    });
    expect(second.nodes).toEqual(["agent", "circuit_fallback"]);
    expect(trajectory(lastTurn(second.state.messages), byDetector)).toEqual(["refused:call_rate"]);
    expect(second.state.halted).toBe(true);
    expect(toolReplyProblems(second.state.messages)).toEqual([]);
    // The answer must not promise that a new message helps: the limit is session-wide.
    const answer = String(second.state.messages.at(-1)!.content);
    expect(answer).toMatch(/session reached a circuit breaker limit/);
    expect(answer).toMatch(/a new message alone will not lift it/);
  });
});

describe("session identity", () => {
  beforeEach(() => resetToolFixtures());
  const context = { model: "scripted:clean" };
  const callerSessions = { env: { BREAKER_CALLER_SESSIONS: "true" } };

  it("is the thread when the context names no session", async () => {
    const { graph, store } = testGraph();
    const { state } = await runTurn(graph, "Revenue?", { context, thread: "thread-a" });
    expect(state.sessionId).toBe("thread:thread-a");
    expect(await store.sessions()).toEqual(["thread:thread-a"]);
  });

  it("is the caller's named session across threads when the operator allows it, in the caller namespace", async () => {
    const { graph, store } = testGraph(callerSessions);
    const shared = { model: "scripted:loop", sessionId: "user-42", maxCallsPerWindow: 3 };
    const first = await runTurn(graph, "Overdue invoices?", { context: shared, thread: "thread-a" });
    expect(first.state.sessionId).toBe("caller:anonymous:user-42");
    // Another thread of the same session inherits its spent call budget.
    const second = await runTurn(graph, "Revenue?", { context: { ...shared, model: "scripted:clean" }, thread: "thread-b" });
    expect(second.state.sessionId).toBe("caller:anonymous:user-42");
    expect(trajectory(second.state.messages, byDetector)).toEqual(["refused:call_rate"]);
    expect(await store.sessions()).toEqual(["caller:anonymous:user-42"]);
  });

  it("cannot reach a thread's session, nor another authenticated user's, by naming it", async () => {
    const { graph, store } = testGraph(callerSessions);
    const limits = { maxCallsPerWindow: 3 };
    await runTurn(graph, "List the orders.", { context: { model: "scripted:pagination", ...limits }, thread: "victim" });
    const victim = await inspectSession(store, threadSession("victim"));
    expect(victim.totalCalls).toBeGreaterThan(0);
    // Naming the thread, or its session id, lands in the caller's own namespace.
    for (const name of ["victim", "thread:victim"]) {
      const { state } = await runTurn(graph, "Revenue?", { context: { ...context, ...limits, sessionId: name }, thread: `attacker-${name}` });
      expect(state.sessionId).toBe(`caller:anonymous:${name}`);
      // The victim spent its 3-call window; a session that reached it would be refused at once.
      expect(trajectory(state.messages).map((t) => t.replace("+advisory", ""))).toEqual(["ran", "ran"]);
    }
    expect(await inspectSession(store, threadSession("victim"))).toEqual(victim);

    // Two authenticated users naming the same session get two sessions.
    const asUser = (identity: string) =>
      graph.invoke(userTurn("Revenue?"), {
        context: { ...context, sessionId: "team" } as never,
        configurable: { thread_id: `t-${identity}`, langgraph_auth_user: { identity } },
      });
    expect((await asUser("alice")).sessionId).toBe("caller:alice:team");
    expect((await asUser("bob")).sessionId).toBe("caller:bob:team");
  });

  it("is unique per run without a thread, and holds every call of that run", async () => {
    const { graph, store } = testGraph();
    const a = await runTurn(graph, "Overdue invoices?", { context: { model: "scripted:loop" } });
    const b = await runTurn(graph, "Overdue invoices?", { context: { model: "scripted:loop" } });
    expect(a.state.sessionId).toMatch(/^run:/);
    expect(b.state.sessionId).toMatch(/^run:/);
    expect(a.state.sessionId).not.toBe(b.state.sessionId);
    expect((await store.sessions()).sort()).toEqual([a.state.sessionId, b.state.sessionId].sort());
    // Both runs tripped the same way: the second did not inherit the first one's calls.
    expect(trajectory(b.state.messages)).toEqual(trajectory(a.state.messages));
    expect((await inspectSession(store, a.state.sessionId)).totalCalls).toBe(toolMessages(a.state.messages).length);
  });
});
