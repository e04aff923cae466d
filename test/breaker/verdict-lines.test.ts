import { describe, expect, it } from "vitest";
import { isStale } from "../../breaker/detectors/progress.js";
import { failureCause } from "../../breaker/failure-cause.js";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { DEFAULT_POLICY } from "../../breaker/policy.js";
import { isVerdictLine } from "../../breaker/verdict-line.js";
import { decideOn, severity, windowOf, type CallSpec } from "./support/window.js";

// Shapes from recorded OpenHands, mini-swe-agent and Cursor sessions: a script or test the agent wrote
// prints its verdict and exits 0; beside them the outputs that look like it and report no failure.

const OPENHANDS_FOOTER = "[The command completed with exit code 0.]\n[Current working directory: /workspace/mui]\n[Command finished with exit code 0]";
const deepmerge = (debug: string[] = []) =>
  [
    'Before merge - foo: {"foo":{"baz":"test"}}',
    ...debug,
    "Test 1 - After modification:",
    "result.foo.baz: new test",
    "foo.foo.baz: new test",
    "Source object should not be modified: FAIL",
    "",
    "Test 3 - Arrays with objects:",
    "Source array object should not be modified: FAIL",
    OPENHANDS_FOOTER,
  ].join("\n");
const MINI_SWE = (debug = "") =>
  `<returncode>0</returncode>\n<output>\nRunning sphinx-quickstart with valid new path...\n> Please enter a new root path (or just Enter to exit) []: \n${debug}Failure: Did not accept valid path or crashed.\n</output>`;
const bunRun = (ms: string) =>
  [
    "error: expect(received).toBe(expected)",
    `✗ SessionDB > deleteSession > should delete a session from the database [${ms}ms]`,
    "✓ SessionDB > deleteSession > should return false if session does not exist [0.15ms]",
    "",
    " 7 pass",
    " 3 fail",
  ].join("\n");

describe("a program's verdict line", () => {
  it.each([
    ["a reproduce script's check at exit 0", deepmerge()],
    ["a script's closing verdict below a harness's return code 0", MINI_SWE()],
    ["an API test script's marked verdict", "📱 ANDROID TEST: orders\n❌ FAILED (500, expected 200)\n📄 Error Response:\n{}"],
    ["unittest's verbose line", "test_merge (tests.test_utils.MergeTest) ... FAIL\ntest_clone (tests.test_utils.MergeTest) ... ok"],
    ["pytest's verbose line", "tests/test_a.py::test_x FAILED                                  [ 50%]"],
    ["go test's lone verdict", "ok  \tgithub.com/acme/util\t0.01s\nFAIL"],
  ])("reads %s as a failure", (_label, output) => {
    expect(summarizeOutcome({ output }).kind).toBe("error");
  });

  it.each([
    ["a script that prints only PASS lines", "Source object should not be modified: PASS\nSource array object should not be modified: PASS"],
    ["a summary counting no failure", "Tests: 10 PASSED, 0 FAILED"],
    ["a count of failures that is zero", "Passed: 12\nFailed: 0"],
    ["a log read as data, each record stamped", "2024-05-01 12:00:03 job 17: FAILED\n2024-05-01 12:05:10 job 18: OK"],
    ["a clock-stamped record", "[12:00:03] nightly build FAILED"],
    ["a style guide's bad example behind a cross mark", "✅ Good: name files in kebab-case\n❌ Bad: camelCase file names"],
    ["prose that mentions a failure", "The deploy of last week failed because of a quota; it was fixed on Monday."],
  ])("reads %s as a success", (_label, output) => {
    expect(summarizeOutcome({ output }).kind).toBe("ok");
  });

  it("is a line of its own, not a word inside one", () => {
    expect(isVerdictLine("Source object should not be modified: FAIL")).toBe(true);
    expect(isVerdictLine("console.log('Source object should not be modified: FAIL')")).toBe(false);
    expect(isVerdictLine("NOTHING FAILED")).toBe(false);
    expect(isVerdictLine("Failure: none")).toBe(false);
  });
});

describe("the cause a program's verdicts state", () => {
  it("stays when only the lines around the verdicts change (debug output added between runs)", () => {
    const plain = failureCause(deepmerge());
    expect(plain).toBeDefined();
    expect(failureCause(deepmerge(["foo.foo === foo.foo: true", "References equal? true"]))).toBe(plain);
    expect(failureCause(MINI_SWE("STDERR output:\n\n"))).toBe(failureCause(MINI_SWE()));
  });

  it("ignores a test's duration", () => {
    expect(failureCause(bunRun("0.43"))).toBe(failureCause(bunRun("0.29")));
  });

  it("moves when one check among several that print the same verdict is fixed", () => {
    const failing = (n: number) => Array.from({ length: n }, () => "❌ FAILED (500, expected 200)").join("\n");
    expect(failureCause(failing(4))).not.toBe(failureCause(failing(5)));
  });

  it("moves when the verdict changes", () => {
    expect(failureCause("Source object should not be modified: FAIL")).not.toBe(failureCause("Source array object should not be modified: FAIL"));
  });

  it("is not a lone verdict that names nothing", () => {
    expect(failureCause("FAIL")).toBeUndefined();
  });
});

describe("an edit-and-rerun cycle read by its verdicts", () => {
  const run = (output: string): CallSpec => ({ tool: "execute_bash", args: { command: "npx ts-node reproduce-deepmerge-simple.ts" }, result: output });
  const edit = (n: number): CallSpec => ({
    tool: "str_replace_editor",
    args: { command: "str_replace", path: "packages/mui-utils/src/deepmerge.ts", old_str: `clone${n}`, new_str: `clone${n + 1}` },
    result: "The file packages/mui-utils/src/deepmerge.ts has been edited.",
  });
  const rounds = (outputs: string[]) => outputs.flatMap((output, i) => [run(output), edit(i)]);
  const candidate = { tool: "execute_bash", args: { command: "npx ts-node reproduce-deepmerge-simple.ts" } };
  const { warn, block } = DEFAULT_POLICY.detectors.transient_retries;

  it("stops the fifth run of a script that prints the same FAIL verdicts after every edit, debug lines added or not", () => {
    const outputs = [deepmerge(), deepmerge(["foo.foo === foo.foo: true"]), deepmerge(["foo.foo === foo.foo: true"]), deepmerge(["foo.foo === foo.foo: true", "References equal? true"])];
    expect(block).toBe(outputs.length + 1);
    expect(severity(decideOn([...rounds(outputs.slice(0, warn - 1)), candidate]), "no_progress")).toBe("warn");
    expect(severity(decideOn([...rounds(outputs), candidate]), "no_progress")).toBe("block");
  });

  it("lets a cycle run on whose verdicts change: one check fixed after each edit", () => {
    const checks = ["Source object should not be modified", "Source array object should not be modified", "Nested arrays are cloned", "Dates are cloned", "RegExps are cloned"];
    const report = (fixed: number) => checks.map((check, i) => `${check}: ${i < fixed ? "PASS" : "FAIL"}`).join("\n") + `\n${OPENHANDS_FOOTER}`;
    expect(severity(decideOn([...rounds([0, 1, 2, 3].map(report)), candidate]), "no_progress")).toBe("none");
  });

  it("lets a cycle run on that ends in a script printing only PASS lines", () => {
    const passing = deepmerge().replace(/: FAIL/g, ": PASS");
    expect(summarizeOutcome({ output: passing }).kind).toBe("ok");
    expect(severity(decideOn([...rounds([deepmerge(), deepmerge(["debug: 1"]), deepmerge(["debug: 2"]), passing]), candidate]), "no_progress")).toBe("none");
  });

  it("judges a rewritten program by its whole output: the same stated cause from other code is news after an edit", () => {
    const code = (n: number): CallSpec => ({ tool: "execute_code", args: { code: `plot(df, x="Weight_in_lbs") # try ${n}` }, result: `${["Name", "Weight_in_lbs", "Origin"].slice(0, n).join(", ")}\nValueError: Could not interpret value \`Weight_in_lbs\` for parameter \`x\`` });
    const [first, second] = windowOf([code(1), code(2)]);
    expect(first!.outcome!.cause).toBe(second!.outcome!.cause);
    expect(isStale(first, second!, true, new Set())).toBe(false);
    const [again, rerun] = windowOf([run(deepmerge()), run(deepmerge(["debug: 1"]))]);
    expect(isStale(again, rerun!, true, new Set())).toBe(true);
    const [before, after] = windowOf([run(deepmerge()), run(deepmerge().replace("Source array object should not be modified: FAIL", ""))]);
    expect(isStale(before, after!, true, new Set())).toBe(false);
  });
});
