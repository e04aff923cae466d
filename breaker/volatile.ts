/**
 * Values in a tool's output that change on every call without meaning new
 * information: request and trace ids, timestamps and durations, the id a
 * send or create call hands back, attempt counters. Masking them makes two
 * results that differ only in such values one result, so twenty identical
 * sends that each return a fresh messageId read as the loop they are.
 *
 * Records inside lists are content, not envelope: their ids tell one page of
 * results from the next, so ids are only masked outside lists, and a page's
 * paging fields beside its records (offset, total, cursor) are envelope. Times are
 * masked everywhere (a polled list whose `updated_at` ticks has not moved).
 */

import { BoundedCache } from "./bounded-cache.js";
import { keyWords } from "./key-words.js";
import { isPageSnapshot, maskSnapshot } from "./page-snapshot.js";


// Keys whose values are per-request noise wherever they appear.
const NOISE_KEY = /^(request|trace|span|correlation|idempotency|x request)( id)?$|^(nonce|etag|signature|cwd)$/;
// Argument keys that name the call itself, not what it asks for: a harness or a model stamps a fresh one on every
// call ("callId": "call-3"), so a request repeated with a new one is the same request. Request, trace and span ids
// are left out: as arguments they are often the thing asked about (`get_trace({traceId})`). The attempt's number
// ("attempt": 3, "retryCount": 2) counts the calls too: the third attempt asks what the first did.
const CALL_STAMP_KEY = /^((tool )?call|invocation) id$|^idempotency (id|key)$|^nonce$|^(attempt|retry|try)( (number|no|num|count|index))?$|^(attempts|retries|tries)$/;

// Keys come from model-written arguments: the memo is bounded.
const callStampKeys = new BoundedCache<string, boolean>(2_048);
/** An argument key whose value stamps the call (call id, idempotency key, nonce), not what it asks: left out of the request. */
export function isCallStampKey(key: string): boolean {
  let stamp = callStampKeys.get(key);
  if (stamp === undefined) {
    stamp = CALL_STAMP_KEY.test(keyWords(key).join(" "));
    callStampKeys.set(key, stamp);
  }
  return stamp;
}
const TIME_WORDS = new Set(["at", "time", "timestamp", "ts", "date", "datetime", "epoch", "now"]);
const DURATION_WORDS = new Set(["elapsed", "duration", "latency", "took", "uptime", "runtime", "wall"]);
// A key named for its unit of time measures one: `exp_wall_s`, `durationMs`, `fetch_ms`.
const TIME_UNITS = new Set(["ms", "s", "sec", "secs", "seconds", "millis", "msec"]);
const ID_WORDS = new Set(["id", "ids", "uuid", "guid", "pid", "sid"]);
// "history" too: a history's length or size (thoughtHistoryLength) grows with every call, whatever it answers.
// "step" too: an environment numbers each action it answers (`step`, `step_idx`), whatever the action did.
const COUNTER_WORDS = new Set(["attempt", "attempts", "retry", "retries", "try", "tries", "iteration", "seq", "sequence", "counter", "history", "step"]);

// Paging and counting beside a list of records (`offset`, `total`, `next_cursor`, `has_more`): a page's envelope.
// Whether a page is new is told by its records; an envelope that moves with the offset asked for is no news.
const PAGING_WORDS = new Set(["offset", "limit", "total", "count", "page", "pages", "cursor", "next", "prev", "previous", "more", "skip"]);

type KeyKind = "noise" | "time" | "id" | "counter" | "paging" | "content";

function kindOfKey(key: string): KeyKind {
  const words = keyWords(key);
  if (words.length === 0) return "content";
  if (NOISE_KEY.test(words.join(" "))) return "noise";
  const last = words.at(-1)!;
  if (TIME_WORDS.has(last) || (words.length > 1 && TIME_UNITS.has(last)) || words.some((w) => DURATION_WORDS.has(w))) return "time";
  if (ID_WORDS.has(last)) return "id";
  if (words.some((w) => COUNTER_WORDS.has(w))) return "counter";
  if (words.some((w) => PAGING_WORDS.has(w))) return "paging";
  return "content";
}

// Keys come from tool outputs: the memo is bounded.
const keyKinds = new BoundedCache<string, KeyKind>(4_096);
function cachedKind(key: string): KeyKind {
  let kind = keyKinds.get(key);
  if (kind === undefined) {
    kind = kindOfKey(key);
    keyKinds.set(key, kind);
  }
  return kind;
}

// Clock times: a date-time, a time with seconds, a listing's "Dec  1 21:50" (`ls -l` in any locale: "мая 30 22:52",
// "1. Dez 21:50"). All need a colon, so a text without one skips them.
const CLOCK_PATTERNS: readonly RegExp[] = [
  /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g,
  /\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g,
  /(?<![\p{L}\p{N}])(\p{L}{3,4}\.? {1,2}\d{1,2}|\d{1,2}\.? \p{L}{3,4}\.?) +\d{1,2}:\d{2}(?![\p{N}:])/gu,
];
// A long listing's row for the parent directory ("drwxrwxrwt 9260 root root 507904 ... .."): its link count and
// size move with whatever else the machine does, and it says nothing about the directory listed.
const PARENT_ROW = /^[-dlbcps][-rwxsStT]{9}[.+@]?[ \t]+\d+[ \t].*[ \t]\.\.$/gm;
// Other times, masked after the clock times: "3 seconds ago", durations after a verb, a parenthesised timing
// ("(0.42 seconds)", tox's "(0.43=setup[0.01]+cmd[0.42] seconds)"), a fractional duration ("0.42s", a log's
// "0.441(s)": a measurement, where a whole "30 seconds" may be a setting), epoch milliseconds.
// Each pattern with what it cannot match without (a bracket, a point, a space, enough characters), checked on the
// original text: "<time>" and "<meter>" bring none of them, and most short values ("acc_001") skip the scan.
interface Scan {
  pattern: RegExp;
  needs: (text: string) => boolean;
}
const always = () => true;
const hasSpace = (text: string) => text.includes(" ");

const TIME_PATTERNS: readonly Scan[] = [
  { pattern: /\((?=[^()\n]*\d)[^()\n]{0,60}?[\d\s](ms|milliseconds?|s|secs?|seconds?)\)/gi, needs: (text) => text.includes("(") },
  { pattern: /\b\d+\.\d+ ?(\((ms|s)\)|(ms|milliseconds?|s|secs?|seconds?)\b)/gi, needs: (text) => text.includes(".") },
  // Milliseconds are measured, whole or not ("transform 902ms"): a setting in them is the same on both sides.
  { pattern: /\b\d+ ?(ms|milliseconds?)\b/gi, needs: (text) => text.includes("ms") || text.includes("milli") },
  { pattern: /\b\d+(\.\d+)? ?(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?) ago\b/gi, needs: hasSpace },
  { pattern: /\b(took|elapsed|in|after|duration|latency)[:=]? ?\d+(\.\d+)? ?(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b/gi, needs: always },
  { pattern: /\b1\d{12}\b/g, needs: (text) => text.length >= 13 },
  // A compact date-time, as programs stamp the files they save: "step_1_20250828@211645.png", "backup-20250828T211645".
  {
    pattern: /(?<!\d)(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])[T@_-]?([01]\d|2[0-3])[0-5]\d[0-5]\d(?!\d)/g,
    needs: (text) => text.length >= 14,
  },
];

// A harness's usage meter printed with the result ("Tokens: 9.7k sent, 1.5k cache hit, 444 received. Cost: $0.0025
// message, $0.0052 session."): it reads differently after every call, whatever the tool answered.
// So is what it says has been used or is left ("You have sent 93 messages and have used up $0.3970. You have
// $0.6030 remaining.").
const METER_PATTERNS: readonly Scan[] = [
  { pattern: /\b\d+(\.\d+)?[kKmM]? (tokens?|sent|received|cache (hit|write|read)s?|prompt tokens|completion tokens)\b/g, needs: hasSpace },
  { pattern: /\b(tokens?( used)?|cost|spent|usage)[:=]? ?\$?\d+(\.\d+)?[kKmM]?( (message|session|total|request|call))?\b/gi, needs: always },
  { pattern: /\$\d+(\.\d+)? (message|session|total|request|call|remaining|left)\b/gi, needs: (text) => text.includes("$") && hasSpace(text) },
  {
    pattern: /\b(sent|used( up)?|spent|consumed|made) \$?\d+(\.\d+)?[kKmM]?( (messages?|requests?|tokens?|credits?|queries|calls?|steps?))?(?=\W|$)/gi,
    needs: hasSpace,
  },
];

// Plain words around the meters: nothing of a result's own (no digit once the meters are masked, no markup).
const METER_LINE_WORDS = /^[\s\w',.;:!()<>$-]*$/;
const METER_LINE_MAX_CHARS = 200;

/** True when a line is only such a meter: the harness speaking above the result, not the tool. */
export function isMeterLine(line: string): boolean {
  if (line.length > METER_LINE_MAX_CHARS || !HAS_DIGIT.test(line)) return false;
  let out = line;
  for (const { pattern } of METER_PATTERNS) out = out.replace(pattern, "<meter>");
  return out !== line && !HAS_DIGIT.test(out) && METER_LINE_WORDS.test(out);
}

/** Ids a machine stamps on what it makes: a UUID, a hex digest. */
export const HASH_IDS: readonly RegExp[] = [
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi,
];

// What a harness counts the agent's calls in: what is left of them is a counter, not news.
const BUDGET_UNITS = "steps?|attempts?|tries|retries|turns?|iterations?|calls?|rounds?|chances?";
// Generated identifiers in text: UUIDs, hex digests, prefixed random ids, long mixed tokens, #refs, pids, attempt counters, budgets left.
const ID_PATTERNS: readonly RegExp[] = [
  ...HASH_IDS,
  // A short random suffix a program glues to a name it makes: "dig_short_example_a97d71.txt", "run-3f9c2e".
  /(?<=[A-Za-z0-9][_-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6}(?=\.[A-Za-z0-9]{1,5}\b|\b)(?![_-][0-9a-f])/gi,
  /\b[a-z]{2,12}[_-](?=[a-z0-9]*\d)[a-z0-9]{6,}\b/gi,
  /\b(?=[A-Za-z0-9]*\d[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{16,}\b/g,
  /#\d+\b/g,
  /\b(pid|process)( id)?[ :=#]*\d+\b/gi,
  // A session, request or message named by a token with a digit: "session ocean-7", "message 1712".
  /\b(session|request|message|thread|conversation|trace|container|deployment|operation|transaction|execution)( id)?[ :=#]+(?=[\w-]*\d)[\w-]+/gi,
  /\b(attempt|retry|try|iteration|call|tick|round|poll)[ :=#]*\d+\b/gi,
  // A counter in the name a program gives each call's artifact: "step_3_<time>.png", "attempt-2.log". In prose a
  // step's number may be progress ("step 1200 of 5000"), so only the glued form counts there.
  /(?<![\p{L}\p{N}])(attempt|retry|iteration|tick|round|poll|step)[_-]\d+(?=[_.-])/giu,
  // A field labelled as an id in prose ("Chunk ID: 1a4eac", "run_id=7f3"), as a JSON key named so is: short ids too.
  /(?<![\p{L}\p{N}])(id|uuid|guid)[ \t]*[:=][ \t]*"?(?=[\w.-]*\d)[\w.-]+/giu,
  // The harness's budget counting down with each call: "You have 4 steps left", "remaining attempts: 2".
  new RegExp(`\\b\\d+ (${BUDGET_UNITS})\\b(?=[^.\\n]{0,40}\\b(left|remaining)\\b)`, "gi"),
  new RegExp(`\\b((${BUDGET_UNITS}) (left|remaining)|(remaining|left) (${BUDGET_UNITS}))[ :=]*\\d+\\b`, "gi"),
];
// A text naming more generated ids than this is listing records, not reporting on one call.
const MAX_MASKED_IDS = 3;

// A time written as a field in prose ("durationMs: 3148", "elapsed_time=2.4"): masked as the JSON field would be.
const PROSE_FIELD = /\b([A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*)([ \t]*[:=][ \t]*)("?)([\w.-]+)\3/g;

// In prose a lone "time" or "date" may label anything ("time: 3" counting steps); a compound key says what it holds.
const isTimeField = (key: string) => cachedKind(key) === "time" && keyWords(key).length > 1;

// Every time pattern (and a prose time field's value) needs a digit, and every id pattern a digit or a
// hyphen: most strings skip the scans.
const HAS_DIGIT = /\d/;
const HAS_DIGIT_OR_HYPHEN = /[\d-]/;

function maskTimes(text: string): string {
  if (!HAS_DIGIT.test(text)) return text;
  // "<time>" and "<meter>" bring no colon or equals sign: a text without them never has one for a later pattern.
  const colon = text.includes(":");
  let out = text;
  if (colon) for (const pattern of CLOCK_PATTERNS) out = out.replace(pattern, "<time>");
  for (const { pattern, needs } of TIME_PATTERNS) if (needs(text)) out = out.replace(pattern, "<time>");
  for (const { pattern, needs } of METER_PATTERNS) if (needs(text)) out = out.replace(pattern, "<meter>");
  if (!colon && !text.includes("=")) return out;
  return out.replace(PROSE_FIELD, (field, key: string, sep: string, quote: string, value: string) =>
    /\d/.test(value) && isTimeField(key) ? `${key}${sep}${quote}<time>${quote}` : field,
  );
}

function maskIds(text: string, ids: string[]): string {
  if (!HAS_DIGIT_OR_HYPHEN.test(text)) return text;
  // Patterns overlap (a UUID's first group is also a hex digest): each id is counted once, by the first pattern
  // that takes it, and a text naming more than a few is a listing left as it is.
  const found: string[] = [];
  let out = text;
  for (const pattern of ID_PATTERNS) {
    out = out.replace(pattern, (id) => {
      found.push(id);
      return "<id>";
    });
    if (found.length > MAX_MASKED_IDS) return text;
  }
  ids.push(...found);
  return out;
}

/** What masking found: the masked copy, and the identifiers it took out. */
export interface Masked {
  value: unknown;
  /** The generated identifiers masked away, in order: a fresh one each call marks a new thing made. */
  ids: string[];
  /** The value is a text that reads as a page snapshot (`isPageSnapshot`), found while masking it. */
  page: boolean;
}

interface Walk {
  /** The objects being copied, outermost first: a value among them is a cycle. An array, since it is rarely deeper than a few. */
  path: object[];
  ids: string[];
  page: boolean;
}

// Bounds on the walk: outputs are untrusted (cycles, huge or deep structures).
const MAX_DEPTH = 64;
const MAX_BREADTH = 10_000;

function mask(value: unknown, inList: boolean, depth: number, walk: Walk): unknown {
  if (typeof value === "string") {
    // A page snapshot's element references and media positions move whatever the action did: masked first.
    const page = isPageSnapshot(value);
    // The output itself a snapshot: the outcome says so, and need not scan the text again.
    if (depth === 0) walk.page = page;
    const text = page ? maskSnapshot(value) : value;
    const timed = maskTimes(text.includes(" ..") ? text.replace(PARENT_ROW, "<parent directory>") : text);
    return inList ? timed : maskIds(timed, walk.ids);
  }
  if (value === null || typeof value !== "object") return value;
  const { path } = walk;
  if (depth > MAX_DEPTH || path.includes(value)) return "[Circular or too deep]";
  path.push(value);
  try {
    if (Array.isArray(value)) return value.slice(0, MAX_BREADTH).map((item) => mask(item, true, depth + 1, walk));
    const out: Record<string, unknown> = {};
    // Read at once (getters run in order), walked in place rather than through a sliced copy.
    const entries = Object.entries(value as Record<string, unknown>);
    const count = Math.min(entries.length, MAX_BREADTH);
    let page = false;
    for (let i = 0; i < count && !inList && !page; i++) {
      const item = entries[i]![1];
      page = Array.isArray(item) && item.length > 0;
    }
    for (let i = 0; i < count; i++) {
      const [key, item] = entries[i]!;
      const kind = cachedKind(key);
      if (kind === "noise" || kind === "time") out[key] = "<volatile>";
      else if (page && kind === "paging" && (item === null || typeof item !== "object")) out[key] = "<paging>";
      else if (!inList && kind === "id" && (item === null || typeof item !== "object")) {
        walk.ids.push(String(item));
        out[key] = "<id>";
      } else if (!inList && kind === "counter" && isCount(item)) out[key] = "<counter>";
      else out[key] = mask(item, inList, depth + 1, walk);
    }
    return out;
  } finally {
    path.pop();
  }
}

// A counter counts: a number, or digits in a string ("3", "3/5"). A word under such a key (`next_step: "Deploy"`,
// a DNA `sequence`) is content.
const isCount = (item: unknown) => typeof item === "number" || (typeof item === "string" && /^[\d\s/.,:-]+$/.test(item) && /\d/.test(item));

/** A copy of a tool output with its volatile values masked (see the module comment), and the ids it masked. */
export function maskVolatile(value: unknown): Masked {
  const walk: Walk = { path: [], ids: [], page: false };
  return { value: mask(value, false, 0, walk), ids: walk.ids, page: walk.page };
}
