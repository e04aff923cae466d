import { describe, expect, it } from "vitest";
import { argFeatures } from "../../../breaker/detectors/arg-features.js";
import { namedNature } from "../../../breaker/detectors/observed-nature.js";
import { argsSimilarity } from "../../../breaker/detectors/similarity.js";
import { summarizeOutcome } from "../../../breaker/outcome.js";
import { decideOn, severity, type CallSpec } from "../support/window.js";

// Shapes of requests and answers that recorded runs (ITBench's Codex shell, AgentDojo, Terminal-Bench,
// CrewAI, browser and computer-use agents) showed the detectors misreading, each beside its legitimate
// counterpart.

const similarity = (a: unknown, b: unknown) => argsSimilarity(argFeatures(JSON.stringify(a)), argFeatures(JSON.stringify(b)));
const state = (specs: CallSpec[]) => decideOn(specs).state;

describe("a command given as argv is code", () => {
  const dir = "/Users/dev/ITBench-SRE-Agent/agent_outputs/2/1";

  it("keeps two commands over one long path apart", () => {
    expect(similarity({ command: ["mkdir", "-p", dir] }, { command: ["touch", `${dir}/agent_output.json`] })).toBe(0);
    // Without a command's name or an option, a list is tags: their order does not matter.
    expect(similarity({ tags: ["billing", "urgent"] }, { tags: ["urgent", "billing"] })).toBe(1);
  });

  it("still reads the same argv as the same request", () => {
    expect(similarity({ command: ["grep", "-C", "2", "adFailure", `${dir}/k8s.tsv`] }, { command: ["grep", "-C", "2", "adFailure", `${dir}/k8s.tsv`] })).toBe(1);
  });
});

describe("a web address names one page", () => {
  it("reads another path as another page, however many words the two share", () => {
    const review = (url: string) => ({ challenge_review_id: "CHL-LG-2026-0711-01", opened_security_guidance_url: url });
    expect(
      similarity(
        review("https://www.login.gov/help/trouble-signing-in/issues-with-authentication-methods/"),
        review("https://www.login.gov/help/trouble-signing-in/authentication/issues-with-text-sms-phone-call/"),
      ),
    ).toBe(0);
  });

  it("reads the scheme, 'www.', a trailing slash and the fragment as cosmetic", () => {
    expect(similarity({ url: "https://www.example.com/docs/intro/" }, { url: "http://example.com/docs/intro#setup" })).toBe(1);
    expect(similarity({ url: "https://example.com/search?q=acme" }, { url: "https://example.com/search?q=globex" })).toBe(0);
  });
});

describe("clicks a few pixels apart aim at one spot", () => {
  const click = (x: number, y: number): CallSpec => ({ tool: "click", args: { x, y, reasoning: `Try (${x}, ${y}).` }, result: { success: true, stateProgressed: false } });

  it("stops clicks drifting around one spot with no effect", () => {
    expect(state([click(650, 30), click(640, 30), click(660, 30), click(650, 20), click(650, 40)])).toBe("OPEN");
    expect(similarity({ action: "left_click", coordinate: [487, 312] }, { action: "left_click", coordinate: [491, 308] })).toBeGreaterThan(0.9);
  });

  it("keeps clicks on different controls apart, and numbers that are not a point exact", () => {
    expect(state([click(100, 30), click(250, 30), click(400, 30), click(550, 30), click(700, 30)])).toBe("CLOSED");
    expect(similarity({ x: 3, y: 5, op: "add" }, { x: 4, y: 5, op: "add" })).toBeGreaterThan(0.9);
    expect(similarity({ x: 3 }, { x: 4 })).toBe(0);
  });
});

describe("a letter alone names no subject", () => {
  // Terminal-Bench's blind maze: the moves differ, and so do the answers that matter.
  const move = (keys: string, answer: string): CallSpec => ({ tool: "send_keystrokes", args: { keystrokes: `${keys}\n`, timeout_sec: 3 }, result: `${answer}\n>` });

  it("does not read different moves that met the same wall as one request", () => {
    expect(
      state([
        move("move S & S & S", "moved & hit wall & hit wall"),
        move("move N & S & E & W", "moved & moved & hit wall & moved"),
        move("move W & W & W", "moved & hit wall & hit wall"),
        move("move N & S & E & W", "reached exit & moved & moved & moved"),
      ]),
    ).toBe("CLOSED");
  });

  it("does not take keys sent to a terminal, or a reckoning about an order, for an act on someone", () => {
    expect(namedNature("send_keystrokes")).toBeUndefined();
    expect(namedNature("send_keys")).toBeUndefined();
    // A reckoning about an order places none: "calculate_order_total_excluding_items" (tau-bench) reads it.
    expect(namedNature("calculate_order_total_excluding_items")).toBeUndefined();
    expect(namedNature("compute_refund")).toBeUndefined();
    expect(namedNature("place_order")).toBe("side_effecting");
    expect(namedNature("send_message")).toBe("side_effecting");
  });
});

describe("a harness refusing a repeat has judged it", () => {
  const delegate = { tool: "Delegate work to coworker", args: { task: "Monitor AAPL market data", coworker: "Data Analyst" } };
  const refusal = "I tried reusing the same input, I must stop using this action input. I'll try something else instead.";

  it("reads the refusal as a failure that says the call repeats one already run", () => {
    const outcome = summarizeOutcome({ output: refusal });
    expect(outcome).toMatchObject({ kind: "error", repeatRefused: true });
    expect(summarizeOutcome({ error: "Duplicate tool call detected: skipped" })).toMatchObject({ kind: "error", repeatRefused: true });
    expect(summarizeOutcome({ output: "Repeat the same steps for the staging cluster." }).kind).toBe("ok");
  });

  it("refuses the call that comes after the refusal", () => {
    const decision = decideOn([{ ...delegate, result: "Here is the AAPL analysis: ..." }, { ...delegate, result: refusal }, delegate]);
    expect(decision.state).toBe("OPEN");
    expect(severity(decision, "identical_repeat")).toBe("block");
  });

  it("reads a note that says the call was already made as the harness's judgment, and the same answer without it as a repeat to count", () => {
    // A harness that appends its verdict to the answer it still returns (aimai-kit's loop detector).
    const lookup = { tool: "lookup", args: { order_id: "1" } };
    const note = "\n\n[note: this exact call was already made earlier in this run and returned the same result. Repeating it will not produce new information.]";
    expect(summarizeOutcome({ output: `order 1 is open${note}` })).toMatchObject({ repeatRefused: true });
    expect(state([{ ...lookup, result: "order 1 is open" }, { ...lookup, result: `order 1 is open${note}` }, lookup])).toBe("OPEN");
    expect(state([{ ...lookup, result: "order 1 is open" }, { ...lookup, result: "order 1 is open" }, lookup])).toBe("HALF_OPEN");
    expect(summarizeOutcome({ output: "That request was already made by another user; here is its status: open" }).repeatRefused).toBeUndefined();
  });

  it("lets a different call through after the refusal", () => {
    const other = { tool: delegate.tool, args: { task: "Summarise AAPL news", coworker: "Researcher" } };
    expect(state([{ ...delegate, result: "Here is the AAPL analysis: ..." }, { ...delegate, result: refusal }, other])).toBe("CLOSED");
  });
});

describe("a bot wall is no page", () => {
  it("reads a short wall as a failure, and a page that mentions JavaScript as a page", () => {
    expect(summarizeOutcome({ output: "marketwatch.comPlease enable JS and disable any ad blocker" }).kind).toBe("error");
    expect(summarizeOutcome({ output: "Just a moment...Enable JavaScript and cookies to continue" }).kind).toBe("error");
    const article = `How to enable JavaScript in your browser. ${"Step by step, with screenshots for every browser. ".repeat(20)}`;
    expect(summarizeOutcome({ output: article }).kind).toBe("ok");
  });

  it("stops the same wall read again between other work", () => {
    const read = { tool: "Read website content", args: { website_url: "https://www.marketwatch.com/investing/stock/aapl" }, result: "marketwatch.comPlease enable JS and disable any ad blocker" };
    const search = (q: string): CallSpec => ({ tool: "Search the internet", args: { search_query: q }, result: `Results for ${q}: Apple closed at $239.07` });
    expect(state([read, search("AAPL trends"), read, search("AAPL news this week"), read, search("AAPL analyst ratings"), { tool: read.tool, args: read.args }])).toBe("OPEN");
  });
});

describe("nothing new, said in words or in a one-line list", () => {
  it.each([["No new papers found beyond previous results"], ["Same papers as previous searches"], ["Duplicate results from previous queries"]])("reads %j as empty", (text) => {
    expect(summarizeOutcome({ output: text }).kind).toBe("empty");
    expect(summarizeOutcome({ output: { results: [text] } }).kind).toBe("empty");
    expect(summarizeOutcome({ output: [text] }).kind).toBe("empty");
  });

  it("keeps results, and successes said with 'no', apart", () => {
    expect(summarizeOutcome({ output: { results: ["Found 3 papers on agent evaluation benchmarks"] } }).kind).toBe("ok");
    expect(summarizeOutcome({ output: "No critical issues found" }).kind).toBe("ok");
    expect(summarizeOutcome({ output: "\\ No newline at end of file" }).kind).toBe("ok");
  });

  it("stops many different searches that each say nothing new", () => {
    const search = (q: string): CallSpec => ({ tool: "web_search", args: { query: q }, result: { results: ["No new papers found"] } });
    const queries = ["agent benchmarks 2024", "agent evaluation publications", "LLM agent eval suites", "tool-use benchmark papers", "web agent benchmark list", "coding agent evaluations", "multi-agent benchmark survey"];
    expect(state(queries.map(search))).toBe("OPEN");
    const found = (q: string, i: number): CallSpec => ({ tool: "web_search", args: { query: q }, result: { results: [`Found ${i + 1} papers on ${q}`] } });
    expect(state(queries.map(found))).toBe("CLOSED");
  });
});

describe("a refusal that a wait may lift is a rate limit, not a refused repeat", () => {
  it("keeps the retry levels for a 429 that asks not to repeat the request", () => {
    const outcome = summarizeOutcome({ error: "HTTP 429 Too Many Requests: do not repeat the same request within 60 seconds" });
    expect(outcome).toMatchObject({ kind: "error", transient: true });
    expect(outcome.repeatRefused).toBeUndefined();
    const call = { tool: "search_orders", args: { customer: "ACME-42" } };
    const limited = { ...call, error: "HTTP 429 Too Many Requests: do not repeat the same request within 60 seconds" };
    expect(state([limited, limited, call])).toBe("CLOSED");
  });
});

describe("a harness's usage meter is no part of the answer", () => {
  // aider prints the tokens and cost of each exchange above the tool's answer.
  const edit = { tool: "apply_search_replace", args: { edits: [{ path: "Assets/Scripts/Core/ItemData.cs", search: "using UnityEngine;", replace: "" }] } };
  const failedMatch = (sent: string, received: number, cost: string) =>
    `Tokens: ${sent} sent, 8.8k cache hit, ${received} received. Cost: $${cost} message, $0.0060 session.\nThe LLM did not conform to the edit format.\n# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in Assets/Scripts/Core/ItemData.cs`;

  it("reads two answers that differ only in the meter as one, and 'block failed to match' as a failure", () => {
    const a = summarizeOutcome({ output: failedMatch("11k", 168, "0.00082") });
    const b = summarizeOutcome({ output: failedMatch("12k", 167, "0.00066") });
    expect(a.kind).toBe("error");
    expect(a.fingerprint).toBe(b.fingerprint);
  });

  it("stops the same edit failing to match again and again, and keeps prices in a result apart", () => {
    expect(state([{ ...edit, result: failedMatch("11k", 168, "0.00082") }, { ...edit, result: failedMatch("12k", 167, "0.00066") }, { ...edit, result: failedMatch("12k", 170, "0.00071") }, edit])).toBe("OPEN");
    expect(summarizeOutcome({ output: "Widget A: $12.50 each" }).fingerprint).not.toBe(summarizeOutcome({ output: "Widget A: $13.50 each" }).fingerprint);
    expect(summarizeOutcome({ output: "Applied edit to src/app.ts. Tokens: 2k sent, 90 received." }).kind).toBe("ok");
  });
});

describe("a file path names one file", () => {
  const root = "/figma-gemini/gemini-3-pro-preview/49bdd49a-5831-4dca-ad1b-a66b7b9901fa";

  it("reads another file under one long directory as another request", () => {
    expect(similarity({ file_path: `${root}/package.json` }, { file_path: `${root}/index.html` })).toBe(0);
    expect(similarity({ file_path: `${root}/src/App.tsx` }, { file_path: `${root}/src/main.tsx` })).toBe(0);
  });

  it("reads separators, a leading './', a trailing slash and case as cosmetic", () => {
    expect(similarity({ path: "src\\pages\\index.astro" }, { path: "./src/pages/index.astro" })).toBe(1);
    expect(similarity({ path: "docs/guide/" }, { path: "Docs/Guide" })).toBe(1);
    expect(similarity({ path: "/docs/pricing_faq.md" }, { path: "/docs/Pricing-FAQ.md" })).toBe(1);
  });
});

describe("a harness's header line is read past", () => {
  it("reads the failure below a 'Created At' header", () => {
    const output = "Created At: 2026-07-26T11:19:25+05:30\nError invalid tool call: There was a problem parsing the tool call.";
    expect(summarizeOutcome({ output }).kind).toBe("error");
    expect(summarizeOutcome({ output: "Created At: 2026-07-26T11:19:25+05:30\nTool is running as a background task." }).kind).toBe("ok");
  });
});

describe("a dotted name in a short query names one thing", () => {
  it("keeps searches of different sites apart, as different numbers are", () => {
    expect(similarity({ query: '"Guy Kimhi" site:instagram.com' }, { query: '"Guy Kimhi" site:facebook.com' })).toBe(0);
    expect(similarity({ query: "load config.yaml settings" }, { query: "load config.yml settings" })).toBe(0);
    expect(similarity({ query: '"Guy Kimhi" site:Instagram.com' }, { query: "guy kimhi site:instagram.com" })).toBe(1);
  });

  it("does not hold a long text's passing dotted calls to that rule", () => {
    const code = (fn: string) => `${"import pandas as pd and load the cars dataset from the url then ".repeat(2)}call pd.${fn} on it`;
    expect(similarity({ code: code("read_csv") }, { code: code("read_json") })).toBeGreaterThan(0.7);
  });
});

describe("a thought alone is the request", () => {
  // tau-bench's `think` tool answers every thought with an empty string.
  const think = (thought: string): CallSpec => ({ tool: "think", args: { thought }, result: "" });

  it("keeps different thoughts apart, and stops the same thought thought again and again", () => {
    expect(state([think("Ask for the order id."), think("Confirm the new colour."), think("Tell the user about the size."), think("Summarise the change.")])).toBe("CLOSED");
    expect(state([think("Ask for the order id."), think("Ask for the order id."), think("Ask for the order id.")])).toBe("OPEN");
  });
});
