/**
 * A verdict a program prints about its own check, on a line of its own:
 * "Source object should not be modified: FAIL", "test_x (a.B) ... FAIL",
 * "Failure: Did not accept valid path or crashed.", "❌ FAILED (500,
 * expected 200)", Go's lone "FAIL". An agent's reproduce script or test
 * prints it and still exits 0, so the exit status cannot tell its run
 * from a success; the verdict can. A line stamped with a date or a clock
 * time is a log record, a failure reported as data, not this run's verdict.
 */

// A log record's stamp in front of its line: "2024-05-01 12:00:03", "[12:00:03]", "12:00:03.120".
const LOG_STAMP = /^[[(]?(\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2})/;
// The failure words a verdict is said in, in capitals at the end of a line: "...: FAIL", "... FAILED [ 50%]".
// Not a count or a denial in front of it: "10 PASSED, 0 FAILED", "NOTHING FAILED".
const VERDICT_AT_END = /^\S.*?(:|\.{2,}|\s[-–—=>|]+|\s)\s*(?<!(^|[,;(]\s*)\d+\s+|\b(NO|NOT|NONE|NOTHING|NEVER|ZERO)\s+)(FAIL|FAILED|FAILURE)[.!]?(\s*\[\s*\d+%\])?$/;
// A verdict said first, with what failed: "Failure: Did not accept ...", "FAILED: login returns 401"; not a count ("Failed: 0").
const VERDICT_FIRST = /^(Failure|FAILURE|Failed|FAILED|FAIL|Fail)\s*[:!]\s*(?!(0|none|no|n\/a)\b)[\p{L}\p{N}(]/u;
// A verdict behind a cross mark: "❌ FAILED (500, expected 200)", "✗ Failed: 3 checks"; or a test runner's line for a
// failed test, the cross mark before its name and its duration after ("✗ db > deletes a session [0.43ms]",
// "✕ renders (5 ms)"). A cross mark alone opens lines of prose too ("❌ Bad:" in a style guide).
const VERDICT_MARKED = /^(❌|✗|✘|✖|✕|×)\s*(FAIL|FAILED|FAILURE|Fail|Failed|Failure)\b/;
const FAILED_TEST = /^(✗|✘|✖|✕|×)\s*\S.*\s[[(]\d+(\.\d+)?\s*(ms|s|µs)[\])]$/;
// A lone verdict line: Go's "FAIL" at the end of `go test`.
const VERDICT_ALONE = /^(FAIL|FAILED)$/;

/** True when a line (trimmed) is a program's verdict that its check failed. */
export function isVerdictLine(line: string): boolean {
  if (line.length === 0 || line.length > 400 || LOG_STAMP.test(line)) return false;
  return VERDICT_ALONE.test(line) || VERDICT_AT_END.test(line) || VERDICT_FIRST.test(line) || VERDICT_MARKED.test(line) || FAILED_TEST.test(line);
}

// Outputs can be long: what they say of a failure sits near the top (a compiler) or at the bottom (a traceback).
const EDGE_CHARS = 8_000;

/** The part of an output read for its verdicts and causes: all of it, or its two ends when it is long. */
export function outputEdges(text: string): string {
  return text.length <= 2 * EDGE_CHARS ? text : `${text.slice(0, EDGE_CHARS)}\n${text.slice(-EDGE_CHARS)}`;
}

/** True when a text holds a verdict line: some check the program ran reports that it failed. */
export function hasVerdictLine(text: string): boolean {
  if (!/FAIL|Fail|[✗✘✖✕×]/.test(text)) return false;
  return outputEdges(text).split("\n").some((raw) => isVerdictLine(raw.trim()));
}
