import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BREAKER_ATTRIBUTES as A, BREAKER_METRICS as M, BREAKER_SPANS as S } from "../../breaker/index.js";
import { resetToolFixtures } from "../../tools/index.js";
import { runAgent, scriptedModel, testAgent } from "../middleware/support/agent.js";
import { runTurn, testGraph, toolMessages } from "../support/graph-helpers.js";
import { startOtel, total, type TestOtel } from "./support/otel.js";

let otel: TestOtel;
beforeEach(() => {
  resetToolFixtures();
  otel = startOtel();
});
afterEach(async () => {
  await otel.shutdown();
});

/** The verdict states of the `breaker.check` spans of one session, in order. */
const spannedStates = (session: string) =>
  otel
    .spans()
    .filter((s) => s.name === S.check && s.attributes[A.session] === session)
    .map((s) => s.attributes[A.state]);

describe("telemetry reaches both hosts of the breaker without wiring", () => {
  it("reports the graph's and the middleware's checks, one span per tool call", async () => {
    const { graph } = testGraph();
    const graphRun = await runTurn(graph, "Owner of Acme?", { context: { model: "scripted:stutter" }, thread: "graph-thread" });
    const agentRun = await runAgent(testAgent({ model: scriptedModel("stutter") }), "Owner of Acme?", { thread: "agent-thread" });

    const graphCalls = toolMessages(graphRun.state.messages).length;
    const agentCalls = toolMessages(agentRun.messages).length;
    expect(spannedStates("graph-thread")).toHaveLength(graphCalls);
    expect(spannedStates("agent-thread")).toEqual(spannedStates("graph-thread"));
    expect(spannedStates("agent-thread").at(-1)).toBe("OPEN");

    const verdicts = await otel.points(M.verdicts);
    expect(total(verdicts, { [A.tool]: "query_crm" })).toBe(graphCalls + agentCalls);
    const trip = otel.spans().findLast((s) => s.name === S.check)!.attributes[A.detector] as string;
    expect(total(verdicts, { [A.state]: "OPEN", [A.detector]: trip })).toBe(2);
  });
});
