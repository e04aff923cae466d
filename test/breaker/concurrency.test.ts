import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBreaker } from "../../breaker/breaker.js";

describe("concurrent identical checks", () => {
  it("admits exactly three of 50 concurrent identical checks with the default policy", async () => {
    const breaker = createBreaker();
    const verdicts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => breaker.check("s", { id: `x${i}`, name: "query_crm", args: { company_name: "Acme" } })),
    );
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(3);
    expect(verdicts.filter((v) => v.state === "HALF_OPEN")).toHaveLength(1);
  });

  it("admits block - 1 of any burst of concurrent identical checks, for any block level", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 60 }), async (block, burst) => {
        const breaker = createBreaker({ policy: { detectors: { identical_repeat: { warn: block, block } } } });
        const verdicts = await Promise.all(
          Array.from({ length: burst }, (_, i) => breaker.check("s", { id: `x${i}`, name: "t", args: { a: 1 } })),
        );
        expect(verdicts.filter((v) => v.allowed)).toHaveLength(Math.min(burst, block - 1));
      }),
      { numRuns: 40 },
    );
  });

  it("lets concurrent pending variants through the outcome-based detectors", async () => {
    // Pending outcomes show nothing yet: the stutter count waits for results instead of guessing.
    const breaker = createBreaker();
    const names = ["Acme Corp", "ACME corp", "Acme Corporation"];
    const verdicts = await Promise.all(names.map((n, i) => breaker.check("s", { id: `v${i}`, name: "query_crm", args: { company_name: n } })));
    expect(verdicts.every((v) => v.allowed)).toBe(true);
  });
});
