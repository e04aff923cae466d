import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBreaker } from "../../breaker/breaker.js";

describe("concurrent identical checks", () => {
  it("admits exactly two of 50 concurrent identical checks with the default policy", async () => {
    const breaker = createBreaker();
    const verdicts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => breaker.check("s", { id: `x${i}`, name: "query_crm", args: { company_name: "Acme" } })),
    );
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(2);
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

  it("counts concurrent respellings of one request as repeats, and lets distinct requests and pages through", async () => {
    const breaker = createBreaker();
    const names = ["Acme Corp", "ACME corp", "acme  Corp."];
    const variants = await Promise.all(names.map((n, i) => breaker.check("s", { id: `v${i}`, name: "query_crm", args: { company_name: n } })));
    expect(variants.map((v) => v.allowed)).toEqual([true, true, false]);
    const distinct = await Promise.all(["Globex", "Initech", "Hooli"].map((n, i) => breaker.check("t", { id: `d${i}`, name: "query_crm", args: { company_name: n } })));
    expect(distinct.every((v) => v.allowed)).toBe(true);
    const pages = await Promise.all([0, 10, 20].map((offset, i) => breaker.check("u", { id: `p${i}`, name: "kb_search", args: { query: "sso", offset } })));
    expect(pages.every((v) => v.allowed)).toBe(true);
  });
});
