/**
 * The cause a failing program states: its lines naming an error with a
 * message (`error[E0405]: cannot find trait `Target` in this scope`,
 * `SyntaxError: expected 'except' or 'finally' block`, `FAILED
 * tests/a.py::t - assert 2 == 3`), without the location a compiler puts in
 * front of it. Two commands written differently (`py_compile | head -20`,
 * `poetry run py_compile`, `ast.parse`) that fail for the same cause report
 * it in the same words, whatever else their outputs print around it. Every
 * such line counts, not only the first: a suite whose first failing test
 * stays while the others get fixed is moving. A program's own verdict lines
 * ("Source object should not be modified: FAIL", `breaker/verdict-line.ts`)
 * state its cause too, each one counted, so debug lines added around them
 * leave the cause as it was.
 */

import { isVerdictLine, outputEdges } from "./verdict-line.js";

// A compiler's location in front of its message: `src/a.rs:3:5: `, `src/a.ts(3,5): `.
const LOCATION = /^[^\s:()]+(:\d+(:\d+)?|\(\d+,\d+\)):\s*/;
// pytest's "E   " marks the lines of the failure it explains; terraform and miette draw a box's
// side before each line of a diagnostic ("│ Error: No value for required variable").
const PYTEST_MARK = /^E\s+/;
const BOX_SIDE = /^[\u2500-\u257f]\s*/;
// A logger's tags in brackets before the message: "[ERROR] ", "[错误] ", "[2025-03-01 10:00:02] [worker-1] ".
const LOG_TAGS = /^(\[[^\]\n]{1,40}\]\s*)+/;
// A line that is one bracketed text is no tag but what it wraps: Node prints an error it was handed
// as `[TypeError: generate is not a function]`.
const WRAPPED = /^\[([^\]\n]+)\]$/;
const CAUSE_LINE = new RegExp(
  [
    // rustc, gcc, tsc, git, cargo: "error[E0405]: ...", "error TS2304: ...", "fatal: ..."
    "^(error|fatal)(\\[[\\w-]+\\]| [A-Z]+\\d+)?: \\S",
    // A raised exception with its message: "SyntaxError: ...", "django.core.exceptions.FieldError: ..."
    "^[\\w.]*(Error|Exception): \\S",
    // A test runner's verdict naming the test: "FAILED tests/a.py::t - ...", "--- FAIL: TestX (0.00s)"
    "^(--- )?FAIL(ED)?:? \\S",
  ].join("|"),
);
// A message worth comparing: a word and something more, so "Error: 1" or "FAILED x" alone never ties two failures.
const MESSAGE = /^(?=.*[\p{L}_]{2,}).*\S\s+\S/u;
const MAX_CAUSE_CHARS = 300;

// Durations and addresses change from run to run of one failure: "--- FAIL: TestX (0.02s)", "at 0x7f3a...";
// so does a runner's progress ("[ 50%]").
function normalised(line: string): string {
  return line
    .replace(/\b0x[0-9a-f]+\b/gi, "0x")
    .replace(/\(\d+(\.\d+)?m?s\)/g, "(<time>)")
    .replace(/\s*\[\s*\d+%\]$/, "")
    .replace(/\s*[[(]\d+(\.\d+)?\s*(ms|s|µs)[\])]$/, "")
    .replace(/\s+/g, " ")
    .slice(0, MAX_CAUSE_CHARS);
}

// The last text read and its cause: a failing output is asked for it twice (is it transient, what is its cause).
let last: { text: string; cause: string | undefined } | undefined;

/** The normalised cause lines of a failure's text, in order, or undefined when it states none. */
export function failureCause(text: string): string | undefined {
  if (last?.text !== text) last = { text, cause: causeOf(text) };
  return last.cause;
}

function causeOf(text: string): string | undefined {
  const causes: string[] = [];
  for (const raw of outputEdges(text).split("\n")) {
    const trimmed = raw.trim();
    // A program's verdict on one of its checks: each counts, repeats included, so one check fixed among
    // several that print the same verdict moves the cause.
    if (isVerdictLine(trimmed)) {
      if (MESSAGE.test(trimmed)) causes.push(normalised(trimmed));
    } else {
      const line = trimmed.replace(WRAPPED, "$1").replace(LOG_TAGS, "").replace(PYTEST_MARK, "").replace(BOX_SIDE, "").replace(LOCATION, "");
      if (line.length > MAX_CAUSE_CHARS * 4 || !CAUSE_LINE.test(line)) continue;
      if (!MESSAGE.test(line.slice(line.indexOf(" ") + 1))) continue;
      const cause = normalised(line);
      if (!causes.includes(cause)) causes.push(cause);
    }
    if (causes.length >= 20) break;
  }
  return causes.length > 0 ? causes.join("\n") : undefined;
}
