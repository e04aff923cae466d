import { describe, expect, it } from "vitest";
import { createBreaker } from "../../breaker/index.js";

// Two workers serving one session: one worker's call is still running while the other's identical calls finish.
describe("identical calls interleaved with a call still running elsewhere", () => {
  it("still open the circuit at the fourth identical call: a running call is no sign of progress", async () => {
    const breaker = createBreaker();
    const check = (id: string) => breaker.check("shared", { id, name: "lookup", args: { q: "same" } });
    const done = (id: string) => breaker.complete("shared", id, { output: { rows: [1] } });
    const states: string[] = [];
    states.push((await check("c1")).state);
    await done("c1");
    // c2 runs on the other worker and has not reported back.
    states.push((await check("c2")).state);
    states.push((await check("c3")).state);
    await done("c3");
    const fourth = await check("c4");
    states.push(fourth.state);
    expect(states).toEqual(["CLOSED", "CLOSED", "HALF_OPEN", "OPEN"]);
    // c1's answer was news; c2 (running), c3 (the same answer) and c4 are the repeats.
    expect(fourth.findings.find((f) => f.detector === "identical_repeat")).toMatchObject({ severity: "block", steps: [2, 3, 4] });
  });

  it("still restart the count when a finished repeat brought a new result", async () => {
    const breaker = createBreaker();
    const check = (id: string) => breaker.check("moving", { id, name: "lookup", args: { q: "same" } });
    await check("c1");
    await breaker.complete("moving", "c1", { output: { status: "queued" } });
    await check("c2");
    await check("c3");
    await breaker.complete("moving", "c3", { output: { status: "running" } });
    const fourth = await check("c4");
    // c3 moved on from c1: the streak is c3 and c4 only.
    expect(fourth.state).toBe("CLOSED");
    expect(fourth.findings.find((f) => f.detector === "identical_repeat")).toBeUndefined();
  });
});
