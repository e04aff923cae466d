import { beforeEach, describe, expect, it } from "vitest";
import { SCENARIOS } from "../../demo/index.js";
import { resetToolFixtures } from "../../tools/index.js";
import { runTurn, testGraph, trajectory } from "../support/graph-helpers.js";

const LOOP = SCENARIOS.get("loop")!;

/** What happened to each call of a loop run under the given context. */
async function loopTrajectory(context: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const { graph } = testGraph({ env });
  const { state } = await runTurn(graph, LOOP.prompt, { context: { model: "scripted:loop", ...context }, thread: "half-open" });
  return trajectory(state.messages);
}

describe("the HALF_OPEN warning before OPEN", () => {
  beforeEach(() => resetToolFixtures());

  it("with the default policy, runs the 2nd failing identical call with the advisory and refuses the 3rd", async () => {
    expect(await loopTrajectory()).toEqual(["ran", "ran+advisory", "refused"]);
  });

  it("follows maxIdenticalCalls and halfOpenMargin from the context, up to the operator's ceiling", async () => {
    // The operator allows 4 identical calls; 4 is under the default error-flood block (5 failures in a row), so the knob alone decides.
    expect(await loopTrajectory({ maxIdenticalCalls: 4, halfOpenMargin: 2 }, { BREAKER_MAX_IDENTICAL_CALLS: "4" })).toEqual([
      "ran",
      "ran",
      "ran+advisory",
      "ran+advisory",
      "refused",
    ]);
  });

  it("skips the warning zone when halfOpenMargin is 0", async () => {
    expect(await loopTrajectory({ maxIdenticalCalls: 2, halfOpenMargin: 0 })).toEqual(["ran", "ran", "refused"]);
  });
});
