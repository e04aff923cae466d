import { randomUUID } from "node:crypto";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, toolErrorMiddleware } from "langchain";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../../breaker/index.js";
import { loopBreakerMiddleware, LoopBreakerTrippedError, type LoopBreakerExitBehavior } from "../../middleware/index.js";
import { EXAMPLE_TOOLS, resetToolFixtures } from "../../tools/index.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { inspectSession, toolReplyProblems, trajectory } from "../support/graph-helpers.js";
import { CLEAN_ANSWER, cleanCrmScript, loopingSqlScript, plainAnswerScript } from "../support/openai-scripts.js";

const API_KEY = "sk-fake-middleware";
const NEXT_ANSWER = "The invoices table has no overdue view; ask for the exact table.";

let fake: FakeOpenAIServer;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  resetToolFixtures();
});

/** createAgent as a user writes it: the real ChatOpenAI client, the breaker, tool errors as replies. */
function openAIAgent(exitBehavior: LoopBreakerExitBehavior, store = new MemoryStore()) {
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: API_KEY, configuration: { baseURL: fake.baseURL }, maxRetries: 0 });
  return createAgent({
    model,
    tools: EXAMPLE_TOOLS,
    middleware: [loopBreakerMiddleware({ store, exitBehavior }), toolErrorMiddleware({ onError: (e) => `Error: ${(e as Error).message}` })],
    checkpointer: new MemorySaver(),
  });
}

const ask = (content: string) => ({ messages: [new HumanMessage(content)] });
const on = (thread: string) => ({ configurable: { thread_id: thread } });

/** The next user turn on the thread, answered by the fake: a 200 proves the thread is whole (it answers 400 otherwise, as OpenAI does). */
async function nextTurnIsAccepted(agent: ReturnType<typeof openAIAgent>, thread: string, calls: number) {
  fake.setScript(plainAnswerScript(NEXT_ANSWER));
  fake.requests.length = 0;
  const next = await agent.invoke(ask("Use the invoices table instead."), on(thread));
  expect(fake.requests.map((r) => r.status)).toEqual([200]);
  expect((fake.completions()[0]?.messages ?? []).filter((m) => m.role === "tool")).toHaveLength(calls);
  expect(next.messages.at(-1)?.content).toBe(NEXT_ANSWER);
}

describe("loopBreakerMiddleware with the real ChatOpenAI client against an OpenAI-compatible server", () => {
  it("stops a looping model, answers every call, bills ChatOpenAI's usage, and the thread stays valid", async () => {
    const store = new MemoryStore();
    const agent = openAIAgent("end", store);
    const thread = randomUUID();
    fake.setScript(loopingSqlScript);
    const out = await agent.invoke(ask("How many invoices are overdue?"), on(thread));

    expect(trajectory(out.messages)).toEqual(["ran", "ran+advisory", "refused"]);
    // One completion per call: the model was not asked again after the trip.
    expect(fake.completions()).toHaveLength(3);
    expect(toolReplyProblems(out.messages)).toEqual([]);
    expect(out.breakerTripped).toBe(true);
    // The usage ChatOpenAI parsed from the server reached the breaker's budget, once per model message.
    expect((await inspectSession(store, thread)).usage).toMatchObject({ inputTokens: 360, outputTokens: 54 });

    await nextTurnIsAccepted(agent, thread, 3);
  });

  it('with exitBehavior "error", throws and leaves a thread the API still accepts', async () => {
    const agent = openAIAgent("error");
    const thread = randomUUID();
    fake.setScript(loopingSqlScript);
    const failure = await agent.invoke(ask("How many invoices are overdue?"), on(thread)).catch((e: unknown) => e);

    expect(LoopBreakerTrippedError.from(failure)?.verdicts.at(-1)).toMatchObject({ tool: "query_database", allowed: false });
    const messages = (await agent.graph.getState(on(thread))).values.messages as BaseMessage[];
    expect(messages.filter((m) => ToolMessage.isInstance(m))).toHaveLength(2);
    expect(toolReplyProblems(messages)).toEqual([]);

    await nextTurnIsAccepted(agent, thread, 2);
  });

  it("lets a clean task run to its answer", async () => {
    fake.setScript(cleanCrmScript);
    const out = await openAIAgent("end").invoke(ask("What was Acme Corp's revenue last year?"), on(randomUUID()));

    expect(out.messages.at(-1)?.content).toBe(CLEAN_ANSWER);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(trajectory(out.messages)).toEqual(["ran", "ran"]);
    expect(out.breakerTripped).toBe(false);
  });
});
