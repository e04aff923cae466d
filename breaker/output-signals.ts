/**
 * What a tool's output says about the call, wherever it says it: a failure
 * (a flag, a status, an HTTP code, an exit code, an error sentence or a stack
 * trace in the text), an empty result (an empty structure, a zero count, a
 * "nothing found" sentence), and work still in progress (a job status that is
 * not final). Runtime and offline evaluation read outputs through this one
 * module, so a trajectory replays exactly as the graph judged it live.
 */

import { keyWords } from "./key-words.js";
import * as otherLanguages from "./other-languages.js";
import { failureCause } from "./failure-cause.js";
import { hasVerdictLine } from "./verdict-line.js";
import { isMeterLine } from "./volatile.js";

/** A failure found in an output, and whether a retry may cure it. */
export interface FailureSignal {
  /** Rate limits, 5xx, timeouts, dropped connections: what every retry policy retries. */
  transient: boolean;
  /** The harness refused the call because it repeats one it already ran. */
  repeatRefused?: boolean;
  /** Only a non-zero exit status says so: a status command may report a state that way. */
  exitCodeOnly?: boolean;
}

type Fields = Record<string, unknown>;

// Fields that carry a result's text when it comes in an envelope ({content, details}, {stdout, exit_code}).
const TEXT_KEYS = ["content", "text", "output", "stdout", "stderr", "result"];

function textsOf(fields: Fields): string[] {
  return TEXT_KEYS.map((key) => fields[key]).filter((v): v is string => typeof v === "string");
}

/** The text a result says its piece in: itself, or its envelope's error, message and text fields. */
export function spokenText(value: unknown): string {
  if (typeof value === "string") return value;
  const fields = asFields(value);
  if (!fields) return "";
  const said = [fields.error, fields.message, ...textsOf(fields)].filter((v): v is string => typeof v === "string");
  return said.join("\n");
}

const asFields = (value: unknown): Fields | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;

// --- failures said in text --------------------------------------------------

// Openings of a first line that reports a failure: "Error: ...", "ToolError: ...", "HTTP 503", "Permission denied".
const FAILURE_OPENING = new RegExp(
  "^\\s*[\\[(]?(" +
    [
      "(error|errors|exception|traceback|fatal|fail|failed|failure|panic|err)\\b",
      // The harness refused the call: "Tool call skipped: limit reached", "Request denied".
      "((tool |function )?call |request |action )?(skipped|refused|rejected|denied|blocked|not allowed)\\b",
      "[\\w.]*(Error|Exception)\\b\\s*[:(\\]]",
      "(permission|access) denied\\b",
      "(unauthori[sz]ed|forbidden|bad request|too many requests|rate[ -]limit(ed)?|service unavailable|internal server error|bad gateway|gateway time-?out)\\b",
      "connection (refused|reset|closed|aborted|timed out)\\b",
      "(request |operation |read |connect )?timed? ?out\\b",
      "(http|status( code)?)[ /:]*(1\\.[01] )?[45]\\d\\d\\b",
      "[45]\\d\\d (\\w+ ){0,2}(error|not found|unavailable|forbidden|unauthorized|timeout)\\b",
      "invalid\\b",
      "(runtime|command|execution|build|request|call|tool) (failed|error)\\b",
      // A failure reported as an event: "An error occurred: ...", "An unexpected exception was raised".
      "(an? |the )?(unexpected |unknown |internal |unhandled )?(error|exception)( has)? (occurred|occured|happened|was raised|was thrown)\\b",
      "something went wrong\\b",
      // A subject that failed, said first: "Speed test failed: No Connection.", "Upload failed", "Login failed."
      "(?!(nothing|none|no|zero|never)\\b)[a-z][\\w-]*( [\\w-]+){0,3} failed\\b(?! to find)",
      // The harness did not know what was asked: "Unknown command 'x'", "Unknown tool: y".
      "unknown (command|tool|function|action|method|operation)\\b",
      // "Could not find ..." is a miss: the empty reading takes it.
      "(cannot|can't|unable to|could not|couldn't)\\b(?! find)",
      ...otherLanguages.FAILURE_OPENINGS,
    ].join("|") +
    ")",
  "i",
);

// A non-zero exit status said in the text. Status commands also exit non-zero to report a state
// (`gh pr checks` exits 8 while checks are pending), so alone beside work in progress it is no failure.
const EXIT_CODE: readonly RegExp[] = [
  /\b(exit(ed)?|returned|return) (with )?(a )?(non-zero )?(exit )?(code|status)[: =]*-?[1-9]\d*\b/i,
  /\bexit_?code[: =]+-?[1-9]\d*\b/i,
  /\bnon-zero exit (code|status)\b/i,
];

// Failure wherever it appears in the text: a stack trace, a shell's complaint, a test runner's verdict.
const FAILURE_ANYWHERE: readonly RegExp[] = [
  /\b(limit|quota|budget) (has been |was )?(reached|exceeded|exhausted)\b/i,
  /^Traceback \(most recent call last\):/m,
  /^\s+at \S.*\(?[^\s()]+:\d+:\d+\)?\s*$(\n^\s+at \S.*$)+/m,
  /\bpanicked at\b/,
  /^(\S+: )?(line \d+: )?\S+: command not found$/m,
  /^(\S+: )+(cannot access '[^']*': )?No such file or directory$/m,
  /^(fatal|error)(\[\w+\])?: /m,
  // A compiler's or checker's diagnostic behind its location: "src/a.ts(3,5): error TS2304: ...", "main.c:3:5: error: ...",
  // mypy's "app.py:3: error: ...", and tsc's count of them ("Found 2 errors in 1 file.").
  /^[^\s:()]+(:\d+(:\d+)?|\(\d+,\d+\)):\s*(fatal )?error(\[\w+\]| [A-Z]+\d+)?: /m,
  /^Found [1-9]\d* errors?\b/m,
  // A line that opens by saying what failed: "# 1 SEARCH/REPLACE block failed to match!", "Patch failed to apply".
  /^[#>*\s-]*(\d+ )?[\w./\\-]+( [\w./\\-]+){0,3} failed to (match|apply|parse|compile|load|open|read|write|execute|run|start|connect|resolve|import|install|build|update|create|delete|save)\b/m,
  // A line naming a raised exception: "SyntaxError: invalid syntax", "ModuleNotFoundError: No module named x".
  /^[A-Z]\w*(Error|Exception)(: |$)/m,
  // A test runner's verdict: "FAILED tests/x.py::t", "FAIL src/a.test.ts", "--- FAIL: TestX", "test result: FAILED",
  // or a summary naming failures beside passes ("1 failed, 11 passed", "3 passing, 1 failing", bun's "7 pass / 3 fail").
  /^(--- )?(FAILED|FAIL)\b[ :\t]/m,
  /\btest result: FAILED\b/,
  /\b[1-9]\d* (failed|failing|fail|errors?)\b[^]{0,200}?\b\d+ (passed|passing|pass)\b|\b\d+ (passed|passing|pass)\b[^]{0,200}?\b[1-9]\d* (failed|failing|fail|errors?)\b/,
  // node:test and TAP summaries: "# fail 3".
  /^# fail [1-9]\d*$/m,
];

// Failures that a retry may cure.
const TRANSIENT = new RegExp(
  [
    // A status named by what carried it: "HTTP 503", "status: 502", "bad response: 503", "server returned 500".
    "\\b(http|status|code|error|response|responded|returned|replied)\\D{0,3}(408|425|429|5\\d\\d)\\b",
    "\\b(408|429|500|502|503|504|529)\\s+(request timeout|too many|internal|bad gateway|service|gateway|unavailable|overloaded)",
    "rate[ -]?limit",
    "too many requests",
    "(temporar(il)?y|currently) (unavailable|down|overloaded)",
    "service unavailable|bad gateway|gateway time-?out|internal server error|server error",
    "timed? ?out|timeout|deadline exceeded",
    // The exit status of coreutils' `timeout` when the command ran out of time.
    "\\bexit (code|status)\\D{0,3}124\\b",
    "connection (\\w+ )?(reset|refused|closed|aborted|dropped|lost|timed out|failed|failure|error)|connection ?error|disconnected|socket hang ?up|broken pipe|network (error|failure|unreachable)",
    // The fetch API's own words for a request that never got an answer: undici's "fetch failed", the browser's
    // "TypeError: Failed to fetch" (said alone: "Failed to fetch https://x: 404" names its cause).
    "\\bfetch failed\\b|\\bfailed to fetch\\W*$",
    "\\b(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|EPIPE|ENETUNREACH|EHOSTUNREACH)\\b",
    "overloaded|try again later|retry after|please retry|throttl",
    // A server that did not answer: "The connector's server isn't responding", "no response from upstream".
    "\\b((is|are|was|were)n't|(is|are|was|were) not|not|stopped) responding\\b|\\bno response (from|received)\\b|\\b(did not|didn't) respond\\b|\\bhost unreachable\\b",
    // An error that says so itself: "transient: fail 1", "RetryableError", "temporary failure", "flaky error".
    "\\b(transient|retr[iy]-?able|temporary (failure|error)|flaky|intermittent(ly)?|sporadic(ally)?)\\b",
    // One that says running it again may work: "Re-running the plugin may succeed once symbols are cached".
    "\\b(re-?run(ning)?|retry(ing)?|re-?try(ing)?|trying again|running it again)\\b[^.\\n]{0,60}\\b(may|might|should|will|could) (succeed|work|pass)\\b",
  ].join("|"),
  "i",
);

// The harness did not run the call: a sibling in its parallel batch failed ("Sibling tool call errored"), or the
// call was cancelled or aborted as the run was interrupted.
const CANCELLED = new RegExp(
  "^\\W*(<\\w+>)?\\s*(" +
    [
      "sibling tool call (errored|failed)",
      "(the )?(tool call|call|request|operation|execution|run) (was )?(cancel+ed|aborted|interrupted)( by the user| because [^\\n]{0,80})?",
      "(cancel+ed|aborted|interrupted) (by the user|because [^\\n]{0,80})",
    ].join("|") +
    ")\\W*(<\\/\\w+>)?\\W*$",
  "i",
);

/** True when an error says the call never ran: cancelled with its batch or its run. */
export function isCancellation(text: string): boolean {
  // Read through the wrappers a harness puts on a tool's error ("Error: Read failed: ...").
  return CANCELLED.test(text.trim().replace(/^(error:\s*)?([\w.-]+ failed:\s*)?/i, ""));
}

// A failure that says a retry will not cure it, whatever else it names: "BLOCKED: Command timed out. Do NOT retry
// this command.", "NonRetryableError", "not retryable".
const NOT_RETRYABLE = /\b(do not|don't|never|must not|should not|cannot|can't|will not|won't) (be )?(retry|retried|try again)\b|\bnon-?retr[iy]-?able|\bnot retr[iy]-?able\b/i;

/** True when a failure's text says a retry may cure it (rate limit, 5xx, timeout, dropped connection). */
export function isTransientText(text: string): boolean {
  return TRANSIENT.test(text) && !NOT_RETRYABLE.test(text);
}

// A harness's header line above the result: "Created At: 2026-07-25T20:24:10+05:30", "Tokens: 4.1k sent, 224 received."
const HEADER_LINE = /^\s*([\w .-]{1,30}:\s*\d{4}-\d{2}-\d{2}[T ][\d:.+Z-]*|tokens: [^\n]*\b(sent|received)\b[^\n]*|(```|~~~)[\w+-]*)\s*$/i;

// A program, or the user and host it ran as, naming itself before its message: "ssh: ", "root@db-1: ".
const SPEAKER = /^[\w.-]+(@[\w.-]+)?: /;

// The first non-blank line below any header (a harness's stamp, a code fence); long texts are judged by
// their start and their failure markers.
function firstLine(text: string): string {
  const lines = /^\s*(\S[^\n]*)(?:\n\s*(\S[^\n]*))?/.exec(text);
  if (!lines) return "";
  return (HEADER_LINE.test(lines[1]!) || isMeterLine(lines[1]!)) && lines[2] !== undefined ? lines[2] : lines[1]!;
}

// An API's answer written as fields in prose, its message among them: "code=99992402, msg=field validation failed",
// "errcode: 40001, errmsg: invalid credential".
const MESSAGE_FIELD = /(?:^|[\s,;{(])(?:msg|message|err_?msg|error_?msg|error_?message)[ \t]*[:=][ \t]*"?([^\n",;]+)/gi;

// A line that opens with a failure, said by the program itself, behind its name ("ssh: Could not resolve ...") or
// as the message field of an answer in prose.
function opensWithFailure(line: string): boolean {
  if (FAILURE_OPENING.test(line) || FAILURE_OPENING.test(line.replace(SPEAKER, ""))) return true;
  for (const field of line.matchAll(MESSAGE_FIELD)) if (FAILURE_OPENING.test(field[1]!)) return true;
  return false;
}

// A page that is a bot wall, not the content asked for: "Please enable JS and disable any ad blocker",
// Cloudflare's "Just a moment..." or "Verify you are human". Only a short page is all wall.
const BLOCKED_PAGE =
  /\b((please )?(enable|turn on) (javascript|js|cookies)|(disable|turn off) (your |any )?ad ?blockers?|(verify|prove|confirm) (that )?you('re| are) (a )?human|are you a robot|just a moment\.\.\.|attention required)\b/i;
const MAX_BLOCKED_PAGE_CHARS = 600;

// A harness refusing to run a call again: "I tried reusing the same input, I must stop using this action input",
// "Duplicate tool call detected", "You already called this tool with the same arguments".
const REPEAT_REFUSED: readonly RegExp[] = [
  /\b(reus(e|ing)|repeat(ing|ed)?|duplicat(e|ed|ing)) (the )?(same|identical|previous) (input|call|action|request|arguments)\b/i,
  /\bduplicate (tool |function )?(call|request|action)s? (detected|refused|rejected|skipped|blocked)\b/i,
  /\b(already|previously) (called|made|tried|ran|run|executed) (this|that|the same) (tool|call|action|function|request)\b/i,
  // Said of the call: "this exact call was already made earlier in this run".
  /\b(this|the same)( exact| identical)? (tool call|call|function call) (was|has been|had been) (already|previously) (made|tried|run|executed)\b/i,
];

/**
 * What a text known to be a failure says of it: transient, a repeat the harness refused
 * (unless a retry may cure it: "do not repeat the same request within 60 s" after a 429), or neither.
 */
export function failureSignal(text: string): FailureSignal {
  if (isTransientText(text)) return { transient: true };
  return refusesRepeat(text) ? { transient: false, repeatRefused: true } : { transient: false };
}

const refusesRepeat = (text: string) => REPEAT_REFUSED.some((pattern) => pattern.test(text));

// Whether a failing program's output says a retry may cure it, read in the lines that state its failure when
// it states them: a suite whose passing tests are named "rate limiting" or "timeout" is not failing for that.
const saysTransient = (text: string) => isTransientText(failureCause(text) ?? text);

/** A failure stated in a text, or undefined. */
export function failureInText(text: string): FailureSignal | undefined {
  if (refusesRepeat(text)) return failureSignal(text);
  if (opensWithFailure(firstLine(text)) || FAILURE_ANYWHERE.some((pattern) => pattern.test(text)) || hasVerdictLine(text)) {
    return { transient: saysTransient(text) };
  }
  if (text.length <= MAX_BLOCKED_PAGE_CHARS && BLOCKED_PAGE.test(text)) return { transient: false };
  return EXIT_CODE.some((pattern) => pattern.test(text)) ? { transient: saysTransient(text), exitCodeOnly: true } : undefined;
}

// --- failures said in structure ----------------------------------------------

const FAILED_STATUS = /^(error|errored|failed|failure|fail|fatal|exception)$/i;
const HTTP_STATUS_KEYS = ["status", "statusCode", "status_code", "httpStatus", "http_status", "code"];
const EXIT_KEYS = ["exit_code", "exitCode", "returncode", "return_code", "exit_status", "exitStatus"];

function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  return typeof value !== "object" || Object.keys(value).length > 0;
}

function httpStatus(fields: Fields): number | undefined {
  for (const key of HTTP_STATUS_KEYS) {
    const raw = fields[key];
    const code = typeof raw === "number" ? raw : typeof raw === "string" && /^\d{3}$/.test(raw) ? Number(raw) : undefined;
    // `code` alone is too common a field name (a product code); trust it only beside a message.
    if (key === "code" && !("message" in fields || "error" in fields)) continue;
    if (code !== undefined && code >= 400 && code <= 599) return code;
  }
  return undefined;
}

// Keys that state how the call ended: `status`, `state`, `outcome`, `conclusion` (GitHub's check runs), `run_result`.
const VERDICT_WORDS = new Set(["status", "state", "outcome", "conclusion", "result"]);
const verdictKey = (key: string) => VERDICT_WORDS.has(keyWords(key).at(-1) ?? "");
// Any key that names an exit and ends on it or on its code: `runner_exit`, `exit_status`; not `exit_price`.
const EXIT_ENDINGS = new Set(["exit", "code", "status"]);
const exitKey = (key: string) => {
  const words = keyWords(key);
  return EXIT_KEYS.includes(key) || (words.includes("exit") && EXIT_ENDINGS.has(words.at(-1)!));
};

// A failure said in a verdict field: {"status": "error"}, {"outcome": "failed"}, {"conclusion": "failure"}.
function statedFailure(fields: Fields): boolean {
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === "string" && value.length <= 16 && verdictKey(key) && FAILED_STATUS.test(value.trim())) return true;
  }
  return false;
}

// A non-zero exit code, on the result or one level down ({details: {exitCode: 1}}).
function nonZeroExit(fields: Fields, depth = 0): boolean {
  for (const key in fields) if (typeof fields[key] === "number" && fields[key] !== 0 && exitKey(key)) return true;
  return depth === 0 && Object.values(fields).some((v) => asFields(v) && nonZeroExit(v as Fields, 1));
}

// The fields' words in one text; a module function, not a closure made on every output.
const joinedText = (...values: unknown[]) => values.map((v) => (typeof v === "string" ? v : JSON.stringify(v) ?? "")).join(" ");

function failureInFields(fields: Fields): FailureSignal | undefined {
  const status = httpStatus(fields);
  if (status !== undefined) return { transient: status === 408 || status === 425 || status === 429 || status >= 500 };
  const failed =
    present(fields.error) ||
    fields.ok === false ||
    fields.success === false ||
    fields.succeeded === false ||
    fields.isError === true ||
    fields.is_error === true ||
    statedFailure(fields) ||
    (Array.isArray(fields.errors) && fields.errors.length > 0 && !present(fields.data));
  const inText = failed ? undefined : textsOf(fields).map(failureInText).find(Boolean);
  if (inText && !inText.exitCodeOnly) return inText;
  const exitCodeOnly = !failed && (inText !== undefined || nonZeroExit(fields));
  if (!failed && !exitCodeOnly) return undefined;
  const transient = isTransientText(joinedText(fields.error, fields.errors, fields.message, fields.status, fields.detail, fields.reason, ...textsOf(fields)));
  return exitCodeOnly ? { transient, exitCodeOnly } : { transient };
}

/** A failure an output reports, in its structure or its text, or undefined. */
export function failureInOutput(value: unknown): FailureSignal | undefined {
  if (typeof value === "string") return failureInText(value);
  const fields = asFields(value);
  return fields ? failureInFields(fields) : undefined;
}

// --- empty results -------------------------------------------------------------

// "Nothing" in words, in a short text: "No results", "(nothing stored)", "0 rows", "Could not find ...".
// "No errors", "no changes" and the like report a success, not an empty lookup.
const NOT_EMPTINESS = "(?!(errors?|problems?|issues?|warnings?|changes?|differences?|conflicts?|vulnerabilit(y|ies))\\b)";
const NOTHING_SAID = new RegExp(
  [
    // Alone, however it is spelled: "(no output)", "[empty-output]", "<empty_result>".
    "^\\W*(none|nothing|null|nil|n/?a|empty([ _-](output|result|response))?|no[ _-](data|results?|output|matches))\\W*$",
    `\\b(no|zero|0) ${NOT_EMPTINESS}(\\w+ )?(results?|matches|records?|rows?|items?|entries|hits|documents?|files?|data|objects?|messages?|orders?|users?|accounts?|customers?)\\b`,
    `\\b(nothing|no ${NOT_EMPTINESS}\\w+( ${NOT_EMPTINESS}\\w+)?) (was |were )?(found|matched|returned|stored|to (show|display|return))\\b`,
    // Nothing new, said in words: "No new papers found", "Same results as previous searches".
    "\\b(nothing|no) new\\b",
    "\\b(same|duplicate|identical) (\\w+ ){0,2}(as|from) (the )?(previous|prior|earlier|last|before)\\b",
    "\\b(could not|couldn't|unable to|did not|didn't|cannot|can't) (find|locate)\\b",
    "\\bnot found\\b",
    "\\b(empty|blank) (result|response|list|set|page|output)\\b",
    "\\b(is|are|was|were) empty\\b",
    "\\breturned (nothing|no \\w+)\\b",
    "\\bno (such|matching)\\b",
    ...otherLanguages.NOTHING_SAID,
  ].join("|"),
  "i",
);
const NOTHING_SAID_MAX_CHARS = 240;
const COUNT_KEYS = ["count", "total", "total_count", "totalCount", "num_results", "numResults", "result_count", "resultCount", "hits", "size", "length"];

// Fields of a result envelope rather than its content: paging, counts, status flags, the query echoed back, a
// hint or note on the miss (`total`, `maxResults`, `startAt`, `has_more`, `nextCursor`, `status`, `hint`), by
// the words of their keys.
const ENVELOPE_WORDS = new Set(
  "total count size length hits page pages per limit offset cursor next prev previous more start max min status state ok success message msg query q took elapsed type kind object hint hints note notes suggestion suggestions tip reason detail details info warning warnings explanation".split(" "),
);
// A key that counts what was found: `total`, `totalMatches`, `resultCount`, `num_hits`.
const COUNT_WORDS = new Set(["count", "total", "num", "hits", "matches"]);
const countKey = (key: string) => COUNT_KEYS.includes(key) || keyWords(key).some((word) => COUNT_WORDS.has(word));
const envelopeKey = (key: string) => keyWords(key).some((word) => ENVELOPE_WORDS.has(word));

// A value that says nothing: unset, empty, zero or false.
const blank = (v: unknown) => v === null || v === undefined || v === "" || v === 0 || v === false;

// An empty list, or one holding only a sentence that says nothing: `["No results found"]`.
const emptyList = (list: readonly unknown[]) => list.length === 0 || (list.length === 1 && typeof list[0] === "string" && isEmptyOutput(list[0]));

function emptyFields(fields: Fields): boolean {
  const values = Object.values(fields);
  if (values.length === 0) return true;
  if (values.every((v) => v === null || v === undefined || v === "")) return true;
  const lists = values.filter(Array.isArray);
  // {results: [], total: 0}: an envelope whose every list is empty. Beside content
  // ({thoughtNumber: 3, branches: []}) an empty list is just an empty part of an answer.
  if (lists.length > 0) {
    if (!lists.every(emptyList)) return false;
    // Every list empty and a count of zero beside them: nothing was found, whatever else the envelope echoes.
    if (Object.entries(fields).some(([key, v]) => v === 0 && countKey(key))) return true;
    return Object.entries(fields).every(([key, v]) => Array.isArray(v) || blank(v) || envelopeKey(key) || (asFields(v) !== undefined && emptyFields(v as Fields)));
  }
  // {count: 0, ...} with nothing listed.
  if (COUNT_KEYS.some((key) => fields[key] === 0) && !values.some((v) => asFields(v) && !emptyFields(v as Fields))) return true;
  // {session_id: 3, output: ""}: the content left blank, beside only the envelope and the ids it is stamped with.
  const entries = Object.entries(fields);
  return entries.some(([, v]) => v === "" || v === null) && entries.every(([key, v]) => blank(v) || envelopeKey(key) || idKey(key));
}

const idKey = (key: string) => /^ids?$/.test(keyWords(key).at(-1) ?? "");

// A short text of "Key: value" lines ("Status Code: 0\nResponse: "), as fields; undefined for any other text.
const PROSE_FIELD_LINE = /^([A-Za-z][\w .-]{0,30}?):[ \t]*(.*)$/;
const MAX_PROSE_FIELDS = 8;
function proseFields(text: string): Fields | undefined {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0 || lines.length > MAX_PROSE_FIELDS) return undefined;
  const fields: Fields = {};
  for (const line of lines) {
    const match = PROSE_FIELD_LINE.exec(line.trim());
    if (!match) return undefined;
    fields[match[1]!] = match[2]!.trim();
  }
  return fields;
}

// A terminal capture's prompt line (`runner@d4d5:~/workspace$`, Windows's `C:\app>` or `PS C:\app>`, optionally
// with the command it echoes) and the banner a shell prints as it starts (its name and version, `Microsoft
// Windows [Version 10.0.26200]`, and its copyright notice): the terminal speaking, not the program.
const PROMPT_LINE = /^[\w.-]+@[\w.-]+:[^\n$#]*[$#](\s[^\n]*)?$|^(PS )?[a-z]:\\[^\n<>|]*>(\s[^\n]*)?$/i;
const BANNER_LINE = /^[^\n]+\[version [\d.]+\]$|^(\(c\)|©|copyright\b)[^\n]*\ball rights reserved\.?$/i;

// A capture made only of prompts, the shell's banner and the command it echoes (an argument of the call,
// alone on its line) printed nothing of the program's own.
function onlyPrompts(text: string, echoes: readonly string[]): boolean {
  const shellLine = (line: string) => line === "" || PROMPT_LINE.test(line) || BANNER_LINE.test(line) || echoes.includes(line);
  // Most outputs (a page of HTML) fail on their first line: read it before splitting the rest.
  const end = text.indexOf("\n");
  if (!shellLine((end < 0 ? text : text.slice(0, end)).trim())) return false;
  const lines = text.split("\n").map((line) => line.trim());
  return lines.every(shellLine) && lines.some((line) => PROMPT_LINE.test(line));
}

// A result a harness wrapped in tags ("<returncode>0</returncode>\n<output>\n</output>", as mini-swe-agent prints a
// command's result) is empty when every element but the exit status is, and nothing stands outside them.
const TAGGED_ELEMENT = /<([A-Za-z][\w-]*)>([\s\S]*?)<\/\1>/g;
function emptyTagged(text: string): boolean {
  let elements = 0;
  for (const [, name, content] of text.matchAll(TAGGED_ELEMENT)) {
    elements++;
    if (!EXIT_KEYS.includes(name!.toLowerCase()) && content!.trim() !== "") return false;
  }
  return elements > 1 && text.replace(TAGGED_ELEMENT, "").trim() === "";
}

/**
 * True when an output holds nothing: empty structures, a zero count, a short
 * "nothing found" text, a harness's tagged envelope with nothing inside, or a
 * terminal capture of only the shell's own words (`echoes`: the call's
 * argument values, which a terminal echoes back).
 */
export function isEmptyOutput(value: unknown, echoes: readonly string[] = []): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === "string") {
    const text = value.trim();
    if (/[@>]/.test(text) && (onlyPrompts(text, echoes) || (text.startsWith("<") && emptyTagged(text)))) return true;
    if (text === "" || text === "[]" || text === "{}" || (text.length <= NOTHING_SAID_MAX_CHARS && NOTHING_SAID.test(text))) return true;
    const fields = text.length <= NOTHING_SAID_MAX_CHARS && text.includes(":") ? proseFields(text) : undefined;
    return fields !== undefined && emptyFields(fields);
  }
  if (Array.isArray(value)) return emptyList(value);
  const fields = asFields(value);
  return fields ? emptyFields(fields) : false;
}

// --- work in progress ------------------------------------------------------------

// A job state that is not final. Generic job vocabulary, as schedulers, CI systems and cloud APIs report it.
const UNFINISHED =
  "running|pending|queued|in[ _-]?progress|processing|waiting|started|starting|scheduled|building|deploying|provisioning|creating|initiali[sz]ing|not[ _-]?(started|ready|finished|done|complete)|accepted|submitted|executing|working|uploading|downloading|syncing|retrying|requested|preparing";
const UNFINISHED_VALUE = new RegExp(`^(${UNFINISHED})$`, "i");
// The same among a state's words: "CREATE_IN_PROGRESS" (CloudFormation), "job not started".
const UNFINISHED_AMONG_WORDS = new RegExp(`(^| )(${UNFINISHED})( |$)`, "i");
// A present participle names a state still under way ("Terminating", "ContainerCreating", "PodInitializing"),
// except for the few -ing words that name a condition or a thing.
const ONGOING_WORD = /^[a-z]{3,}ing$/;
const NOT_ONGOING = new Set(["missing", "warning", "nothing", "something", "anything", "everything", "string", "thing", "ceiling", "setting", "during"]);

// The words of a state value, letters only (unlike keyWords, digits neither count nor join a word), split at
// case changes and separators: "ContainerCreating" -> container creating.
function stateWords(value: string): string[] {
  return value
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/** True when a state value says the work is not finished: a job-state word, or a state under way (an -ing word). */
export function isUnfinishedState(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > 60) return false;
  if (UNFINISHED_VALUE.test(trimmed)) return true;
  const words = stateWords(trimmed);
  return words.length <= 4 && (UNFINISHED_AMONG_WORDS.test(words.join(" ")) || words.some((w) => ONGOING_WORD.test(w) && !NOT_ONGOING.has(w)));
}

// In prose the state must be stated: "still running", "job is queued", "status: pending", "no new output",
// or a first line naming its subject and state ("Process running with session ID 3", "Build queued").
const UNFINISHED_WORDS = "running|pending|queued|in[ _-]?progress|processing|waiting|building|deploying|provisioning|initiali[sz]ing|executing";
const UNFINISHED_TEXT = new RegExp(
  [
    `\\b(still|currently|is|are|now) (being )?(${UNFINISHED_WORDS})\\b`,
    // ... but not a negation of it: "No running shell found", "Nothing pending".
    `^\\W*(?!(no|not|none|nothing)\\b)[A-Za-z]+( [A-Za-z]+)? (${UNFINISHED_WORDS})\\b`,
    "\\bin[ _-]progress\\b",
    "\\bno new output\\b",
    "\\b(has|have|is|are) not (yet )?(finished|completed|complete|done|ready)\\b",
    "\\bnot (yet )?(finished|completed?|done|ready)\\b",
    "\\bwait (longer|more|a bit)\\b",
    // A program saying what it waits on: "Waiting for deployment "chime" rollout to finish: 8 of 15 updated".
    "^\\W*waiting (for|on)\\b",
  ].join("|"),
  "i",
);
// "status: ContainerCreating", "State = Provisioning": the value is read as a state value.
const STATED_STATE = /\b(status|state|phase)\W{0,3}(?:is )?["']?([A-Za-z][\w-]*)/gi;
// A table's header naming a state column (kubectl, docker ps, gh run list): the cells below it are state values.
const STATE_HEADER = /(^|\s)(STATUS|STATE|PHASE|Status|State|Phase)(\s|$)/;
// A field that names a state: its key's last word (`status`, `jobStatus`, CloudFormation's `StackStatus`).
const STATUS_WORDS = new Set(["status", "state", "phase", "stage"]);
const MAX_STATUS_KEYS = 64;
const statusKeys = (fields: Fields) => Object.keys(fields).slice(0, MAX_STATUS_KEYS).filter((key) => STATUS_WORDS.has(keyWords(key).at(-1) ?? ""));
const DONE_KEYS = ["done", "completed", "complete", "finished", "ready", "is_done", "isDone", "is_complete", "isComplete"];
const IN_PROGRESS_MAX_CHARS = 600;
const MAX_LISTED_RECORDS = 50;

function statedInProse(text: string): boolean {
  if (UNFINISHED_TEXT.test(text)) return true;
  for (const match of text.matchAll(STATED_STATE)) if (isUnfinishedState(match[2]!)) return true;
  return false;
}

// A row of a headerless tab- or space-aligned table ("test\tpending\t0\thttps://..." from `gh pr checks`) with a cell
// that is a job state word and nothing else.
const STATE_CELL = new RegExp(`(^|\\t| {2,})(${UNFINISHED})(\\t| {2,}|$)`, "im");

// The state column of a whitespace-aligned table: each row's cell that starts where the header's does.
function tableInProgress(text: string): boolean {
  if (STATE_CELL.test(text)) return true;
  const lines = text.split("\n");
  const header = lines.findIndex((line) => STATE_HEADER.test(line) && line.trim().split(/\s+/).length >= 2);
  if (header < 0) return false;
  const match = STATE_HEADER.exec(lines[header]!)!;
  const column = match.index + match[1]!.length;
  // Columns are found by position when aligned, by word count when single-spaced ("NAME READY STATUS").
  const index = lines[header]!.slice(0, column).trim().split(/\s+/).filter(Boolean).length;
  return lines.slice(header + 1).some((row) => {
    const aligned = row[column - 1] !== undefined && /\s/.test(row[column - 1]!) ? /^\S+(?: \S+)?/.exec(row.slice(column))?.[0] : undefined;
    const counted = row.trim().split(/\s+/)[index];
    return (aligned !== undefined && isUnfinishedState(aligned)) || (counted !== undefined && isUnfinishedState(counted));
  });
}

// The first records of a list, read for their state: enough for a task board, bounded for a huge listing.
function listInProgress(list: readonly unknown[], depth: number): boolean {
  return list.slice(0, MAX_LISTED_RECORDS).some((item) => asFields(item) !== undefined && inProgressFields(item as Fields, depth));
}

function textInProgress(text: string): boolean {
  return text.length <= IN_PROGRESS_MAX_CHARS && (statedInProse(text) || tableInProgress(text));
}

function inProgressFields(fields: Fields, depth: number): boolean {
  for (const key of statusKeys(fields)) {
    const value = fields[key];
    if (typeof value === "string" && isUnfinishedState(value)) return true;
    const nested = asFields(value);
    if (nested && depth < 2 && inProgressFields(nested, depth + 1)) return true;
  }
  if (DONE_KEYS.some((key) => fields[key] === false)) return true;
  if (depth === 0 && textsOf(fields).some(textInProgress)) return true;
  if (depth >= 2) return false;
  // One level down ({job: {status: "running"}}), and the records of a list ({agents: [{status: "running"}]}).
  return Object.values(fields).some((v) => {
    if (Array.isArray(v)) return listInProgress(v, depth + 1);
    return depth < 1 && asFields(v) !== undefined && inProgressFields(v as Fields, depth + 1);
  });
}

/** True when an output reports work that is not finished yet (a job status to poll again). */
export function isInProgress(value: unknown): boolean {
  if (typeof value === "string") return textInProgress(value);
  if (Array.isArray(value)) return listInProgress(value, 1);
  const fields = asFields(value);
  return fields ? inProgressFields(fields, 0) : false;
}
