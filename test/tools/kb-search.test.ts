import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { kbSearch } from "../../tools/kb-search.js";
import { followPages, run, SCHEMA_REJECTION } from "./invoke.js";

interface KbPage {
  results: { id: string }[];
  total: number;
  next_offset: number | null;
}

/** Every page of a query, following next_offset from 0. */
function allPages(query: string, limit?: number): Promise<KbPage[]> {
  return followPages(
    0,
    (offset) => run<KbPage>(kbSearch, { query, offset, ...(limit ? { limit } : {}) }),
    (page) => page.next_offset,
  );
}

describe("kb_search", () => {
  it("pages through a query with hits and terminates", async () => {
    const pages = await allPages("billing");
    const ids = pages.flatMap((p) => p.results.map((r) => r.id));
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.at(-1)?.next_offset).toBeNull();
    expect(ids.length).toBe(pages[0]?.total);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages[0]?.results).toHaveLength(5);
  });

  it("gives each page new results, as a legitimate pager must", async () => {
    const pages = await allPages("billing", 2);
    const fingerprints = pages.map((p) => summarizeOutcome({ output: p }).fingerprint);
    expect(new Set(fingerprints).size).toBe(pages.length);
  });

  it("needs every keyword, ignoring case, punctuation and filler words", async () => {
    const refund = await run(kbSearch, { query: "Refund for the INVOICE?" });
    expect(refund.results.map((r: { id: string }) => r.id)).toEqual(["kb-003"]);
    expect(refund).toMatchObject({ total: 1, next_offset: null });
    expect((await run(kbSearch, { query: "refund quantum" })).total).toBe(0);
  });

  it.each([0, 5, 10])("answers the same empty page at offset %i for a query without hits", async (offset) => {
    const out = await run(kbSearch, { query: "quantum entanglement refund policy", offset });
    expect(out).toEqual({ results: [], total: 0, next_offset: null });
    expect(summarizeOutcome({ output: out }).kind).toBe("empty");
  });

  it("answers the same input identically", async () => {
    const args = { query: "security", offset: 0, limit: 1 };
    expect(await run(kbSearch, args)).toEqual(await run(kbSearch, args));
  });

  it.each([{}, { query: "" }, { query: "billing", offset: -1 }, { query: "billing", limit: 0 }, { query: "billing", limit: 1.5 }])(
    "rejects %j",
    async (args) => {
      await expect(run(kbSearch, args)).rejects.toThrow(SCHEMA_REJECTION);
    },
  );
});
