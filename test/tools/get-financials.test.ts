import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { getFinancials } from "../../tools/get-financials.js";
import { queryCrm } from "../../tools/query-crm.js";
import { run, SCHEMA_REJECTION } from "./invoke.js";

describe("get_financials", () => {
  it("returns every year on record for an account id from the CRM", async () => {
    const { matches } = await run(queryCrm, { company_name: "Acme Corp" });
    const out = await run(getFinancials, { account_id: matches[0].id });
    expect(out.records.map((r: { year: number }) => r.year)).toEqual([2022, 2023, 2024]);
    for (const record of out.records) {
      expect(record.account_id).toBe("acc_001");
      expect(record.revenue_usd).toBeGreaterThan(0);
      expect(record.arr_usd).toBeGreaterThan(0);
    }
  });

  it("filters to one year", async () => {
    const out = await run(getFinancials, { account_id: "acc_002", year: 2023 });
    expect(out.records).toHaveLength(1);
    expect(out.records[0]).toMatchObject({ account_id: "acc_002", year: 2023 });
  });

  it.each([{ account_id: "acc_999" }, { account_id: "Acme Corp" }, { account_id: "acc_001", year: 2019 }])(
    "returns no records for %j",
    async (args) => {
      const out = await run(getFinancials, args);
      expect(out).toEqual({ records: [] });
      expect(summarizeOutcome({ output: out }).kind).toBe("empty");
    },
  );

  it("answers the same input identically", async () => {
    expect(await run(getFinancials, { account_id: "acc_004" })).toEqual(await run(getFinancials, { account_id: "acc_004" }));
  });

  it.each([{}, { account_id: "" }, { account_id: "acc_001", year: 2023.5 }, { account_id: "acc_001", year: "2023" }])(
    "rejects %j",
    async (args) => {
      await expect(run(getFinancials, args)).rejects.toThrow(SCHEMA_REJECTION);
    },
  );
});
