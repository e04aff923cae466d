import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { CRM_COMPANIES } from "./fixtures/crm.js";

const schema = z.object({
  company_name: z.string().trim().min(1).describe('Exact company name as stored in the CRM, e.g. "Acme Corp".'),
});

/**
 * Company lookup by exact name. Variants ("Acme Corporation", "acme corp")
 * miss on purpose: retrying with cosmetic rewrites is the semantic-stutter scenario.
 */
export const queryCrm = defineTool(
  {
    name: "query_crm",
    description:
      "Look up a company in the CRM by its exact name. Returns matching accounts with id, industry, account owner, region, tier and headcount. Use the returned id with get_financials.",
    schema,
    nature: "read_only",
    timeoutMs: 5_000,
    examples: [{ company_name: "Acme Corp" }, { company_name: "Nobody Ltd" }],
  },
  ({ company_name }) => {
    const matches = CRM_COMPANIES.filter((c) => c.name === company_name);
    if (matches.length > 0) return { matches: matches.map((c) => ({ ...c })) };
    return {
      matches: [],
      hint: `No company is named exactly "${company_name}". Names match exactly: case, punctuation and suffixes such as Corp or Inc all count.`,
    };
  },
);
