import { AIMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { SCENARIOS } from "../../demo/index.js";
import { ADVISORY_TAG } from "../../nodes/tools.js";
import { resetToolFixtures } from "../../tools/index.js";
import { sentEmails } from "../../tools/send-email.js";
import {
  frameOf,
  inspectSession,
  mentionsTrip,
  runTurn,
  testGraph,
  textOf,
  toolMessages,
  toolReplyProblems,
} from "../support/graph-helpers.js";

const all = [...SCENARIOS.values()];
const loops = all.filter((s) => s.loops).map((s) => s.name);
const legit = all.filter((s) => !s.loops).map((s) => s.name);

describe("the guarded graph on the scripted scenarios", () => {
  beforeEach(() => resetToolFixtures());

  it("covers the loop and the clean scenarios the template ships", () => {
    expect(loops).toEqual(expect.arrayContaining(["loop", "stutter", "kb_stutter", "ping_pong", "polling_stuck", "email_repeat"]));
    expect(legit).toEqual(expect.arrayContaining(["clean", "pagination", "polling"]));
  });

  it.each(loops)("%s trips, ends through circuit_fallback with every tool call answered", async (name) => {
    const { graph, store } = testGraph();
    const { nodes, state } = await runTurn(graph, SCENARIOS.get(name)!.prompt, { context: { model: `scripted:${name}` }, thread: `t-${name}` });

    expect(nodes.at(-1)).toBe("circuit_fallback");
    expect(nodes.filter((n) => n === "circuit_fallback")).toHaveLength(1);
    expect(state.halted).toBe(true);
    expect(toolReplyProblems(state.messages)).toEqual([]);

    const final = state.messages.at(-1)!;
    expect(AIMessage.isInstance(final) && !final.tool_calls?.length).toBe(true);
    expect(textOf(final)).toMatch(/I stopped this task because the circuit breaker caught my tool calls going in circles/);

    // The refused calls were answered with the frame; everything before them ran.
    const tools = toolMessages(state.messages);
    const frames = tools.filter((m) => textOf(m).includes("CIRCUIT_BREAKER_TRIPPED"));
    expect(frames.length).toBeGreaterThan(0);
    expect(tools.slice(-frames.length)).toEqual(frames);
    for (const frame of frames) expect(frameOf(frame)).toMatchObject({ error: "CIRCUIT_BREAKER_TRIPPED", ran: false });

    // Studio shows why: the state's verdicts hold the refusal, and the store agrees.
    expect(state.verdicts.some((v) => !v.allowed)).toBe(true);
    const session = await inspectSession(store, state.sessionId);
    expect(session.circuit.state).toBe("OPEN");
    expect(session.totalCalls).toBe(tools.length);
  });

  it.each(legit)("%s finishes with the model's answer and no trip", async (name) => {
    const scenario = SCENARIOS.get(name)!;
    const { graph } = testGraph();
    const { nodes, state } = await runTurn(graph, scenario.prompt, { context: { model: `scripted:${name}` }, thread: `t-${name}` });

    expect(nodes).not.toContain("circuit_fallback");
    expect(nodes.at(-1)).toBe("agent");
    expect(state.halted).toBe(false);
    expect(mentionsTrip(state.messages)).toBe(false);
    expect(toolReplyProblems(state.messages)).toEqual([]);
    expect(state.messages.at(-1)!.content).toBe(scenario.answer);

    const tools = toolMessages(state.messages);
    expect(tools).toHaveLength(scenario.turns.length);
    expect(tools.every((m) => m.status === "success")).toBe(true);
    // Legitimate repetition is not even warned about.
    expect(tools.filter((m) => textOf(m).includes(ADVISORY_TAG))).toEqual([]);
  });

  it("never sends the repeated e-mail", async () => {
    const { graph } = testGraph();
    await runTurn(graph, SCENARIOS.get("email_repeat")!.prompt, { context: { model: "scripted:email_repeat" } });
    expect(sentEmails()).toHaveLength(1);
  });
});
