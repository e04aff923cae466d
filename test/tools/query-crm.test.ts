import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { queryCrm } from "../../tools/query-crm.js";
import { run, SCHEMA_REJECTION } from "./invoke.js";

describe("query_crm", () => {
  it("finds a company by its exact name, surrounding spaces ignored", async () => {
    const out = await run(queryCrm, { company_name: "  Acme Corp " });
    expect(out.matches).toHaveLength(1);
    expect(out.matches[0]).toMatchObject({ id: "acc_001", name: "Acme Corp" });
    expect(out.matches[0].industry).toBeTypeOf("string");
    expect(out.matches[0].owner).toBeTypeOf("string");
    expect(out.hint).toBeUndefined();
  });

  it.each(["Acme Corporation", "acme corp", "ACME Corp.", "Acme"])("misses the variant %j with a hint", async (name) => {
    const out = await run(queryCrm, { company_name: name });
    expect(out.matches).toEqual([]);
    expect(out.hint).toContain(name);
    // The breaker must read a miss as an empty result, or the stutter would look like progress.
    expect(summarizeOutcome({ output: out }).kind).toBe("empty");
  });

  it("answers the same input identically", async () => {
    expect(await run(queryCrm, { company_name: "Initech" })).toEqual(await run(queryCrm, { company_name: "Initech" }));
    expect(await run(queryCrm, { company_name: "Initech Ltd" })).toEqual(await run(queryCrm, { company_name: "Initech Ltd" }));
  });

  it("hands out copies, so a caller cannot change the fixture", async () => {
    const first = await run(queryCrm, { company_name: "Hooli" });
    first.matches[0].owner = "someone else";
    expect((await run(queryCrm, { company_name: "Hooli" })).matches[0].owner).not.toBe("someone else");
  });

  it.each([{}, { company_name: "" }, { company_name: "   " }, { company_name: 42 }])("rejects %j", async (args) => {
    await expect(run(queryCrm, args)).rejects.toThrow(SCHEMA_REJECTION);
  });
});
