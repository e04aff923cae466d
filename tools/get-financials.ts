import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { FINANCIAL_RECORDS } from "./fixtures/financials.js";

const schema = z.object({
  account_id: z.string().trim().min(1).describe('CRM account id as returned by query_crm, e.g. "acc_001".'),
  year: z.number().int().min(2000).max(2100).optional().describe("Fiscal year; omit for every year on record."),
});

/** Revenue and ARR per fiscal year for a CRM account: the second step of the CRM -> finance task. */
export const getFinancials = defineTool(
  {
    name: "get_financials",
    description:
      "Get revenue, ARR and gross margin per fiscal year for a CRM account id (from query_crm). Optionally filter to one year. An unknown id or year returns no records.",
    schema,
    nature: "read_only",
    timeoutMs: 5_000,
    examples: [{ account_id: "acc_001" }, { account_id: "acc_001", year: 2024 }],
  },
  ({ account_id, year }) => ({
    records: FINANCIAL_RECORDS.filter((r) => r.account_id === account_id && (year === undefined || r.year === year)).map(
      (r) => ({ ...r }),
    ),
  }),
);
