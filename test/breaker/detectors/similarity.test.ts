import { describe, expect, it } from "vitest";
import { argFeatures, normalizeText, requestKeysOf } from "../../../breaker/detectors/arg-features.js";
import { argsSimilarity, sameRequest } from "../../../breaker/detectors/similarity.js";
import { canonicalArgs } from "../../../breaker/canonical.js";
import { DEFAULT_POLICY } from "../../../breaker/policy.js";
import { windowOf } from "../support/window.js";

const threshold = DEFAULT_POLICY.detectors.semantic_stutter.similarity;
const similarity = (a: unknown, b: unknown) => argsSimilarity(argFeatures(canonicalArgs(a)), argFeatures(canonicalArgs(b)));
const same = (a: unknown, b: unknown) => similarity(a, b) >= threshold;

describe("argument similarity", () => {
  it("counts a changed legal suffix as the same name (the seed's Jaccard scored this 0)", () => {
    expect(similarity({ company_name: "Acme Corp" }, { company_name: "Acme Corporation" })).toBe(1);
  });

  it.each([
    ["case and punctuation", "Acme Corp", "ACME corp."],
    ["whitespace", "Acme Corp", "Acme   Corp"],
    ["reordered words", "Acme Corp", "Corp Acme"],
    ["a typo", "Acme Corp", "Acme Crop"],
    ["a dropped letter", "Initech", "Initec"],
    ["a doubled letter", "Initech", "Inittech"],
    ["another suffix", "Globex Inc", "Globex, LLC"],
    ["accents", "Café Müller", "cafe muller"],
  ])("treats %s as cosmetic", (_label, a, b) => {
    expect(same({ company_name: a }, { company_name: b })).toBe(true);
  });

  it.each([
    ["another company", "Acme Corp", "Globex Inc"],
    ["an extra naming word", "Acme Corp", "Acme Holdings"],
    ["a different short word", "Initech", "Hooli"],
  ])("tells %s apart", (_label, a, b) => {
    expect(same({ company_name: a }, { company_name: b })).toBe(false);
  });

  it("ignores paging and pacing fields but not what is asked", () => {
    expect(same({ query: "sso", offset: 0, limit: 5 }, { query: "sso", offset: 10, limit: 20 })).toBe(true);
    expect(same({ customer_id: "c1", page: 1 }, { customer_id: "c1", page: 7, page_size: 50 })).toBe(true);
    expect(same({ job_id: "j1", wait_seconds: 5 }, { job_id: "j1", wait_seconds: 60 })).toBe(true);
    expect(same({ query: "sso", offset: 0 }, { query: "billing", offset: 0 })).toBe(false);
  });

  it("treats a different number as a different request", () => {
    expect(same({ order_id: "ORD-1001" }, { order_id: "ORD-1002" })).toBe(false);
    expect(same({ order_id: 1001 }, { order_id: 1002 })).toBe(false);
    expect(same({ company_id: "acc_001", year: 2023 }, { company_id: "acc_001", year: 2024 })).toBe(false);
    expect(same({ path: "reports/q3.md" }, { path: "reports/q4.md" })).toBe(false);
  });

  it("allows a float to drift by under one percent", () => {
    expect(same({ lat: 48.8566, lon: 2.3522 }, { lat: 48.8567, lon: 2.3522 })).toBe(true);
    expect(same({ lat: 48.8566 }, { lat: 52.52 })).toBe(false);
  });

  it("compares SQL by its words, so a cosmetic rewrite matches and another table does not", () => {
    const sql = "SELECT * FROM orders WHERE customer_id = 'cust_001'";
    expect(same({ sql }, { sql: "select * from orders where customer_id='cust_001';" })).toBe(true);
    expect(same({ sql }, { sql: "SELECT * FROM invoices WHERE customer_id = 'cust_001'" })).toBe(false);
  });

  it("drops filler words from free-text queries", () => {
    expect(same({ query: "reset password" }, { query: "how to reset my password" })).toBe(true);
    expect(same({ query: "weather in paris" }, { query: "weather in berlin" })).toBe(false);
  });

  it("compares e-mail addresses exactly (an address is an identifier)", () => {
    expect(same({ to: "jon@example.com" }, { to: "JON@example.com" })).toBe(true);
    expect(same({ to: "jon@example.com" }, { to: "jan@example.com" })).toBe(false);
  });

  it("never matches arguments of different shapes, and treats unset fields as absent", () => {
    expect(same({ query: "sso" }, { query: "sso", category: "security" })).toBe(false);
    expect(same({ query: "sso" }, { query: "sso", category: null })).toBe(true);
  });

  it("compares malformed (raw string) arguments as text", () => {
    expect(same('{"company_name": "Acme Corp"', '{"company_name": "ACME Corp"')).toBe(true);
  });

  it("never calls calls of different tools the same request", () => {
    const [a, b] = windowOf([
      { tool: "query_crm", args: { name: "Acme" } },
      { tool: "search_crm", args: { name: "Acme" } },
    ]);
    expect(sameRequest(a!, b!, threshold)).toBe(false);
  });

  it("keeps numbers apart when normalizing text, letters and digits split, leading zeros dropped", () => {
    expect(normalizeText("Q3 2024 report, Acme Corp.").numbers).toBe("2024 3");
    expect(normalizeText("ORD 0042").numbers).toBe("42");
    expect(normalizeText("The Acme Corp").words.text).toBe(normalizeText("acme").words.text);
  });

  it.each([
    ["separators", "ORD-42", "ord_42"],
    ["no separator", "ORD-42", "ORD42"],
    ["a space and zero padding", "ORD-42", "ORD 0042"],
    ["a repeated prefix", "ORD-42", "ORD-ORD-42"],
    ["case", "inv-2024-007", "INV_2024_7"],
  ])("reads identifier variants as one identifier: %s", (_label, a, b) => {
    expect(same({ order_id: a }, { order_id: b })).toBe(true);
  });

  it("reads a number and its text as one value, and another number as another request", () => {
    expect(same({ order_id: 42 }, { order_id: "42" })).toBe(true);
    expect(same({ order_id: "ORD-42" }, { order_id: "ORD-43" })).toBe(false);
    expect(same({ order_id: "ORD-42" }, { order_id: "ORD-420" })).toBe(false);
  });

  it.each([
    ["stop words", "how do I reset my password", "reset password"],
    ["a possessive", "Acme's revenue", "revenue of Acme"],
    ["plural and singular", "overdue invoices", "overdue invoice"],
    ["word order and punctuation", "weather in Paris, France", "France: Paris weather"],
  ])("reads a rewording as one request: %s", (_label, a, b) => {
    expect(same({ query: a }, { query: b })).toBe(true);
  });

  it.each([
    ["another entity", "Acme revenue", "Globex revenue"],
    ["another place", "weather in Paris", "weather in Berlin"],
    ["another date", "sales on 2024-03-01", "sales on 2024-03-02"],
    ["another month", "sales in March", "sales in April"],
    ["another topic word", "reset password", "reset username"],
  ])("tells a different request apart: %s", (_label, a, b) => {
    expect(same({ query: a }, { query: b })).toBe(false);
  });
});

describe("a request's spelling (the key of calls whose results are not known)", () => {
  const spelling = (args: unknown) => requestKeysOf(windowOf([{ tool: "t", args }])[0]!).spelling;
  const spelledAlike = (a: unknown, b: unknown) => spelling(a) === spelling(b);

  it.each([
    ["stop words", "how do I configure auth", "configure auth"],
    ["plural and singular, word order", "auth configuration", "configure auth"],
    ["a possessive and punctuation", "Acme's revenue, 2024?", "revenue Acme 2024"],
  ])("spells a rewording alike: %s", (_label, a, b) => {
    expect(spelledAlike({ query: a }, { query: b })).toBe(true);
  });

  it.each([
    ["separators", "ORD-42", "ord_42"],
    ["no separator", "ORD-42", "ORD42"],
    ["a space and zero padding", "ORD-42", "ORD 0042"],
    ["a repeated prefix", "ORD-42", "ORD-ORD-42"],
  ])("spells identifier variants alike: %s", (_label, a, b) => {
    expect(spelledAlike({ order_id: a }, { order_id: b })).toBe(true);
  });

  it("spells a path by its normalized form and a number by its value", () => {
    expect(spelledAlike({ path: ".\\src" }, { path: "./src" })).toBe(true);
    expect(spelledAlike({ order_id: "42" }, { order_id: 42 })).toBe(true);
  });

  it("keeps another entity, place, date or number, and a typo, apart", () => {
    expect(spelledAlike({ query: "Acme revenue" }, { query: "Globex revenue" })).toBe(false);
    expect(spelledAlike({ query: "weather in Paris" }, { query: "weather in Lyon" })).toBe(false);
    expect(spelledAlike({ query: "sales on 2024-03-01" }, { query: "sales on 2024-03-02" })).toBe(false);
    expect(spelledAlike({ order_id: "ORD-42" }, { order_id: "ORD-43" })).toBe(false);
    expect(spelledAlike({ path: "src/a.ts" }, { path: "src/b.ts" })).toBe(false);
    // A typo is forgiven only where the answers are known (request similarity), not in the spelling.
    expect(spelledAlike({ company: "Acme" }, { company: "Acne" })).toBe(false);
  });

  it("keeps a pattern's and a command's punctuation: they match different things", () => {
    expect(spelledAlike({ pattern: "test" }, { pattern: "test*" })).toBe(false);
    expect(spelledAlike({ pattern: "foo|bar baz" }, { pattern: "foo bar baz" })).toBe(false);
    expect(spelledAlike({ cmd: "cat a > b" }, { cmd: "cat a b" })).toBe(false);
    expect(spelledAlike({ pattern: "Foo_Bar" }, { pattern: "foo-bar" })).toBe(true);
  });
});
