import { beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../../breaker/index.js";
import { SCENARIOS } from "../../demo/index.js";
import { runGuarded } from "../../demo/scenario-runner.js";
import { resetToolFixtures } from "../../tools/index.js";
import { inspectSession } from "../support/graph-helpers.js";

describe("the demo's outcome column", () => {
  beforeEach(() => resetToolFixtures());

  it.each([...SCENARIOS.keys()])("%s: every call that ran shows the outcome the breaker recorded for it", async (name) => {
    const store = new MemoryStore();
    const run = await runGuarded(SCENARIOS.get(name)!, { store });
    const recorded = new Map((await inspectSession(store, run.sessionId)).window.map((c) => [c.step, c.outcome?.kind]));
    const ran = run.steps.filter((s) => s.outcome !== "refused");
    expect(ran.length).toBeGreaterThan(0);
    for (const row of ran) expect(row.outcome, `step ${row.step}`).toBe(recorded.get(row.step));
  });

  it("shows an empty search as empty even when the HALF_OPEN advisory was appended to its text", async () => {
    const run = await runGuarded(SCENARIOS.get("kb_stutter")!);
    const warned = run.steps.filter((s) => s.state === "HALF_OPEN");
    expect(warned.length).toBeGreaterThan(0);
    for (const row of warned) expect(row.outcome).toBe("empty");
    expect(run.steps.at(-1)).toMatchObject({ outcome: "refused", state: "OPEN" });
  });
});
