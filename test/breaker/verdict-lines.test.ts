import { describe, expect, it } from "vitest";
import { failureCause } from "../../breaker/failure-cause.js";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { isVerdictLine } from "../../breaker/verdict-line.js";

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
