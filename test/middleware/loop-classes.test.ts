import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { beforeEach, describe, expect, it } from "vitest";
import { createBreaker, MemoryStore } from "../../breaker/index.js";
import { SCENARIOS } from "../../demo/index.js";
import { EXAMPLE_TOOLS, resetToolFixtures } from "../../tools/index.js";
import { sendEmail, sentEmails } from "../../tools/send-email.js";
import {
  callsTurn,
  frameOf,
  inspectSession,
  mentionsTrip,
  ReplayChatModel,
  runTurn,
  testGraph,
  textOf,
  toolMessages,
  toolReplyProblems,
  trajectory,
} from "../support/graph-helpers.js";
import { runAgent, scriptedModel, testAgent } from "./support/agent.js";

const all = [...SCENARIOS.values()];
const loops = all.filter((s) => s.loops).map((s) => s.name);
const legit = all.filter((s) => !s.loops).map((s) => s.name);

/** What happened to each call when the graph runs the same model: the reference the middleware must match. */
async function graphTrajectory(model: ReplayChatModel | ReturnType<typeof scriptedModel>, prompt: string) {
  resetToolFixtures();
  const { graph } = testGraph({ model });
  const { state } = await runTurn(graph, prompt, { thread: "reference" });
  resetToolFixtures();
  return trajectory(state.messages, { detectors: true });
}

describe("loopBreakerMiddleware in createAgent, through each loop class", () => {
  beforeEach(() => resetToolFixtures());

  it.each(loops)("%s: trips, answers every call, ends with the breaker's answer, as the graph does", async (name) => {
    const scenario = SCENARIOS.get(name)!;
    const store = new MemoryStore();
    const agent = testAgent({ model: scriptedModel(name), breaker: { store } });
    const out = await runAgent(agent, scenario.prompt, { thread: `mw-${name}` });

    expect(toolReplyProblems(out.messages)).toEqual([]);
    const final = out.messages.at(-1)!;
    expect(AIMessage.isInstance(final) && !final.tool_calls?.length).toBe(true);
    expect(textOf(final)).toMatch(/I stopped this task because the circuit breaker caught my tool calls going in circles/);
    // The createAgent user raises limits in the middleware's policy, not in a graph context.
    expect(textOf(final)).toContain("breaker policy given to loopBreakerMiddleware");
    expect(out.breakerTripped).toBe(true);
    expect(out.breakerVerdicts.some((v) => !v.allowed)).toBe(true);

    const tools = toolMessages(out.messages);
    const frames = tools.filter((m) => textOf(m).includes("CIRCUIT_BREAKER_TRIPPED"));
    expect(frames.length).toBeGreaterThan(0);
    expect(tools.slice(-frames.length)).toEqual(frames);
    for (const frame of frames) expect(frameOf(frame)).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", ran: false });

    // The session is the thread, and the store saw every call once.
    expect(out.breakerSessionId).toBe(`mw-${name}`);
    const session = await inspectSession(store, `mw-${name}`);
    expect(session.circuit.state).toBe("OPEN");
    expect(session.totalCalls).toBe(tools.length);

    // Same verdicts as the graph on the same model: ran, warned, refused, by the same detector.
    const mine = trajectory(out.messages, { detectors: true });
    expect(mine).toEqual(await graphTrajectory(scriptedModel(name), scenario.prompt));
  });

  it.each(legit)("%s: runs to the model's answer with no warning and no trip", async (name) => {
    const scenario = SCENARIOS.get(name)!;
    const out = await runAgent(testAgent({ model: scriptedModel(name) }), scenario.prompt, { thread: `mw-${name}` });

    expect(out.messages.at(-1)!.content).toBe(scenario.answer);
    expect(out.breakerTripped).toBe(false);
    expect(mentionsTrip(out.messages)).toBe(false);
    expect(toolReplyProblems(out.messages)).toEqual([]);
    expect(trajectory(out.messages)).toEqual(scenario.turns.map(() => "ran"));
    expect(toolMessages(out.messages).every((m) => m.status === "success")).toBe(true);
  });

  it("stops distinct queries to one tool that all fail (flailing, at the same call as the error flood), as the graph does", async () => {
    const failing = ["payments", "refunds", "ledger_entries", "audit_trail", "shipments", "vendors", "returns"].map((table, i) =>
      callsTurn({ name: "query_database", args: { sql: `SELECT * FROM ${table} WHERE id = ${i + 1}` } }),
    );
    const out = await runAgent(testAgent({ model: new ReplayChatModel(failing) }), "Find the missing payment.", { thread: "flood" });

    const mine = trajectory(out.messages, { detectors: true });
    expect(mine.at(-1)).toBe("refused:flailing");
    expect(mine).toEqual(await graphTrajectory(new ReplayChatModel(failing), "Find the missing payment."));
  });

  it("stops a session over its token budget, billing each model message once", async () => {
    const distinct = ["Acme Corp", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries"].map((company) =>
      callsTurn({ name: "query_crm", args: { company_name: company } }),
    );
    const policy = { detectors: { token_budget: { warn: 300, block: 400 } } };
    const store = new MemoryStore();
    const agent = testAgent({ model: new ReplayChatModel(distinct), breaker: { store, policy } });
    const out = await runAgent(agent, "Look up these accounts.", { thread: "budget" });

    // 110 tokens per model message: the fourth message (440) crosses the block level of 400.
    expect(trajectory(out.messages, { detectors: true })).toEqual(["ran", "ran", "ran+advisory", "refused:token_budget"]);
    expect(textOf(out.messages.at(-1)!)).toMatch(/this session reached a circuit breaker limit/);
    expect((await inspectSession(store, "budget")).usage).toMatchObject({ inputTokens: 400, outputTokens: 40 });
  });

  it("takes tool natures from the tools' metadata: a declared side effect is never repeated", async () => {
    await runAgent(testAgent({ model: scriptedModel("email_repeat") }), "Tell ops.", { thread: "declared" });
    expect(sentEmails()).toHaveLength(1);

    // Without a declared nature the name says it sends: still never repeated.
    resetToolFixtures();
    const like = { name: sendEmail.name, description: sendEmail.description, schema: sendEmail.schema };
    const undeclared = tool((input) => sendEmail.invoke(input), like);
    const withTool = (t: typeof undeclared) => [...EXAMPLE_TOOLS.filter((e) => e.name !== "send_email"), t];
    await runAgent(testAgent({ model: scriptedModel("email_repeat"), tools: withTool(undeclared) }), "Tell ops.", { thread: "undeclared" });
    expect(sentEmails()).toHaveLength(1);

    // A declared nature wins over the name: declared read-only, a second identical call is allowed.
    resetToolFixtures();
    const readOnly = tool((input) => sendEmail.invoke(input), { ...like, metadata: { nature: "read_only" } });
    await runAgent(testAgent({ model: scriptedModel("email_repeat"), tools: withTool(readOnly) }), "Tell ops.", { thread: "read-only" });
    expect(sentEmails().length).toBeGreaterThan(1);
  });

  it("uses an injected breaker's policy as it is, natures included", async () => {
    const breaker = createBreaker({ store: new MemoryStore(), policy: { tools: { query_crm: { nature: "side_effecting" } } } });
    const twice = [0, 1].map(() => callsTurn({ name: "query_crm", args: { company_name: "Acme Corp" } }));
    const out = await runAgent(testAgent({ model: new ReplayChatModel(twice), breaker: { breaker } }), "Who owns Acme?", { thread: "given" });
    expect(trajectory(out.messages)).toEqual(["ran", "refused"]);
  });
});
