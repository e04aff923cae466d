import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { modelRetryMiddleware } from "langchain";
import { beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../../breaker/index.js";
import { LoopBreakerTrippedError } from "../../middleware/index.js";
import { resetToolFixtures } from "../../tools/index.js";
import { callsTurn, inspectSession, lastTurn, ReplayChatModel, textOf, toolReplyProblems, trajectory } from "../support/graph-helpers.js";
import { runAgent, scriptedModel, testAgent } from "./support/agent.js";

const FAILING_SQL = callsTurn({ name: "query_database", args: { sql: "SELECT * FROM overdue_invoices" } });
const GAVE_UP = "The overdue_invoices table does not exist; ask me with the invoices table.";

const aiMessages = (messages: readonly BaseMessage[]) => messages.filter((m) => AIMessage.isInstance(m));

describe("exitBehavior: what a trip does", () => {
  beforeEach(() => resetToolFixtures());

  it('"end" (the default) ends the run with the breaker\'s answer and never calls the model again', async () => {
    const model = new ReplayChatModel([FAILING_SQL, FAILING_SQL, FAILING_SQL, FAILING_SQL], GAVE_UP);
    const out = await runAgent(testAgent({ model }), "How many invoices are overdue?", { thread: "end" });

    expect(trajectory(out.messages)).toEqual(["ran", "ran+advisory", "refused"]);
    expect(model.prompts).toHaveLength(3);
    expect(textOf(out.messages.at(-1)!)).toMatch(/^I stopped this task because the circuit breaker/);
    expect(toolReplyProblems(out.messages)).toEqual([]);
  });

  it('"error" throws a LoopBreakerTrippedError before the refused message enters the thread', async () => {
    const store = new MemoryStore();
    const checkpointer = new MemorySaver();
    const model = new ReplayChatModel([FAILING_SQL, FAILING_SQL, FAILING_SQL, FAILING_SQL]);
    const agent = testAgent({ model, breaker: { store, exitBehavior: "error" }, checkpointer });
    const config = { configurable: { thread_id: "error" } };

    const failure = await runAgent(agent, "How many invoices are overdue?", { thread: "error" }).catch((e: unknown) => e);
    const trip = LoopBreakerTrippedError.from(failure);
    expect(trip).toBeInstanceOf(LoopBreakerTrippedError);
    expect(trip).toMatchObject({ code: "CIRCUIT_BREAKER_TRIPPED", sessionId: "error" });
    expect(trip!.verdicts).toEqual([expect.objectContaining({ tool: "query_database", allowed: false, state: "OPEN" })]);
    // createAgent wraps errors raised inside a model call; the wrapper keeps the name and the sentence.
    expect((failure as Error).name).toBe("LoopBreakerTrippedError");
    expect((failure as Error).message).toMatch(/^The circuit breaker refused query_database \(\w+\): .+ None of the message's 1 tool call\(s\) ran\.$/);

    // The thread holds the two calls that ran, both answered, and not the refused message.
    const thread = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    expect(aiMessages(thread)).toHaveLength(2);
    expect(toolReplyProblems(thread)).toEqual([]);
    expect((await inspectSession(store, "error")).circuit.state).toBe("OPEN");

    // So the next user turn on the thread goes on (here with a model that answers at once).
    const answering = testAgent({ model: new ReplayChatModel([], GAVE_UP), breaker: { store, exitBehavior: "error" }, checkpointer });
    const next = await runAgent(answering, "Then use the invoices table.", { thread: "error" });
    expect(next.messages.filter((m) => m.getType() === "human")).toHaveLength(2);
    expect(next.messages.at(-1)!.content).toBe(GAVE_UP);
    expect(toolReplyProblems(next.messages)).toEqual([]);
  });

  it('"error" placed first is not retried by modelRetryMiddleware after it', async () => {
    const model = new ReplayChatModel([FAILING_SQL, FAILING_SQL, FAILING_SQL, FAILING_SQL]);
    const more = [modelRetryMiddleware({ maxRetries: 2, initialDelayMs: 0, jitter: false })];
    const failure = await runAgent(testAgent({ model, breaker: { exitBehavior: "error" }, more }), "Overdue?", { thread: "retry" }).catch((e: unknown) => e);
    expect(LoopBreakerTrippedError.from(failure)).toBeInstanceOf(LoopBreakerTrippedError);
    // The retry wraps only the model call inside the breaker's: three model calls, none repeated.
    expect(model.prompts).toHaveLength(3);
  });

  it('"continue" answers the refused calls as errors and lets the model answer in its own words', async () => {
    const model = new ReplayChatModel([FAILING_SQL, FAILING_SQL, FAILING_SQL], GAVE_UP);
    const out = await runAgent(testAgent({ model, breaker: { exitBehavior: "continue" } }), "How many invoices are overdue?", { thread: "continue" });

    expect(trajectory(out.messages)).toEqual(["ran", "ran+advisory", "refused"]);
    expect(out.messages.at(-1)!.content).toBe(GAVE_UP);
    expect(out.breakerTripped).toBe(true);
    // The model's last prompt ended with the refusal, an error reply.
    const refusal = model.prompts.at(-1)!.at(-1)!;
    expect(ToolMessage.isInstance(refusal) && refusal.status === "error" && textOf(refusal).includes("CIRCUIT_BREAKER_TRIPPED")).toBe(true);
    expect(toolReplyProblems(out.messages)).toEqual([]);
  });

  it('"continue" ends the run like "end" when the model asks for tools again while the circuit is open', async () => {
    const model = scriptedModel("loop");
    const out = await runAgent(testAgent({ model, breaker: { exitBehavior: "continue" } }), "How many invoices are overdue?", { thread: "runaway" });

    // One more model turn after the trip, refused as a whole, then the breaker's answer: no unbounded retries.
    expect(trajectory(out.messages)).toEqual(["ran", "ran+advisory", "refused", "refused"]);
    const turn = lastTurn(out.messages);
    expect(aiMessages(turn)).toHaveLength(5);
    expect(textOf(out.messages.at(-1)!)).toMatch(/^I stopped this task because the circuit breaker/);
    expect(toolReplyProblems(out.messages)).toEqual([]);
  });

  it("refuses every call of the message that trips, the ones judged before the trip included", async () => {
    const batch = callsTurn(
      { name: "query_crm", args: { company_name: "Acme Corp" } },
      { name: "query_database", args: { sql: "SELECT * FROM overdue_invoices" } },
    );
    const model = new ReplayChatModel([FAILING_SQL, FAILING_SQL, batch]);
    const out = await runAgent(testAgent({ model }), "Overdue invoices of Acme?", { thread: "batch" });

    expect(trajectory(out.messages)).toEqual(["ran", "ran+advisory", "refused", "refused"]);
    const frames = out.messages.slice(-3, -1).map((m) => JSON.parse(textOf(m)) as { tool: string; reason: string });
    expect(frames[0]).toMatchObject({ tool: "query_crm", reason: expect.stringMatching(/^Not run: the circuit opened on query_database/) });
    expect(toolReplyProblems(out.messages)).toEqual([]);
  });
});
