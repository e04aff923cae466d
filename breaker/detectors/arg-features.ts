import { stemmer } from "stemmer";
import { eng } from "stopword";
import { BoundedCache } from "../bounded-cache.js";
import { canonicalArgs, hashText, isClipped } from "../canonical.js";
import type { CallRecord } from "../types.js";
import { hasProgram, isCaption } from "./program.js";

/** One argument value reduced to what tells two requests apart. */
export type FieldValue =
  | { kind: "text"; words: TextWords; all: TextWords; numbers: string; code: boolean; prose: boolean }
  | { kind: "number"; value: number }
  | { kind: "position"; value: number }
  | { kind: "exact"; value: string };

/** Words of a normalized text, sorted, and the same as a set for exact lookups. */
export interface TextWords {
  text: string;
  list: readonly string[];
  set: ReadonlySet<string>;
}

/** A call's arguments as comparable fields: path -> value, paging and pacing parameters left out. */
export interface ArgFeatures {
  /** The field paths, sorted and joined: calls with different shapes are never one family. */
  shape: string;
  fields: ReadonlyMap<string, FieldValue>;
}

// Fields that page, size or pace a request (offset, page, limit, cursor,
// timeout, wait, attempt). Their drift never changes what is asked; whether
// paging is progress is judged by the results.
const CONTROL_KEY =
  /^(offset|limit|page|page_?(size|num|number|no|index|token)|per_?page|skip|top|start(_?(index|row))?|count|size|max_?(results|items|rows|count)|num_?(results|items|rows)|n|k|cursor|(next_?)?token|continuation(_?token)?|after|before|batch_?size|timeout(_?(ms|s|sec|seconds))?|wait(_?(ms|s|sec|seconds|for))?|delay(_?(ms|s|sec|seconds))?|(poll_?)?interval(_?(ms|s|sec|seconds))?|retry|retries|attempts?|max_?(wait|retries|attempts)(_?(ms|s|sec|seconds))?|(start|end|first|last|from|to)_?(line|row|byte|char)s?|line_?(start|end|count|range)|(max|chunk|offset|num)_?(lines|bytes|chars|tokens))$/i;
// Fields that narrate why a call is made (a harness's task_progress, a model's
// explanation): beside what the call asks for they are commentary; alone, as in
// a `think` tool, they are the request.
const NARRATION_KEY = /^(task_?progress|explanation|reason(ing)?|rationale|thoughts?|justification|intent|purpose)$/i;

// Legal-form suffixes: "Acme", "Acme Corp" and "Acme Corporation" name one company.
const LEGAL_FORMS = new Set([
  "corp", "corporation", "inc", "incorporated", "llc", "ltd", "limited", "co", "company", "plc", "gmbh", "ag",
  "sa", "llp", "lp", "pty", "bv", "nv",
]);
// Function words (a general English list, not one fitted to any case) never change what is asked.
const STOP_WORDS = new Set([...eng, "please", "show", "find", "list", "give", "tell", "need", "want", "look"]);

const MAX_DEPTH = 6;
const MAX_FIELDS = 64;

function wordsOf(list: string[]): TextWords {
  const sorted = [...new Set(list)].sort();
  return { text: sorted.join(" "), list: sorted, set: new Set(sorted) };
}

/**
 * Tokens of a text: accents, case and punctuation dropped, possessives cut,
 * letters and digits split apart ("ORD42" -> ord 42) and leading zeros
 * dropped ("0042" -> 42), so every spelling of one identifier gives one list.
 */
export function tokensOf(value: string): string[] {
  return value
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’]s\b/g, "")
    .split(/[^\p{L}\p{N}]+|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u)
    .filter(Boolean)
    .map((t) => (/^\d+$/.test(t) ? t.replace(/^0+(?=\d)/, "") : t));
}

const isNumber = (token: string) => /^\p{N}+$/u.test(token);
const stem = (token: string) => (isNumber(token) ? token : stemmer(token));

// Texts up to this many tokens are queries, whose dotted names (a site, a file) name what is asked.
const MAX_NAMED_TOKENS = 16;
const DOTTED_NAME = /(?<![\p{L}\p{N}_.-])[\p{L}\p{N}_-]*\p{L}[\p{L}\p{N}_-]*(\.[\p{L}\p{N}_-]*\p{L}[\p{L}\p{N}_-]*)+/gu;

/**
 * Reduce free text to comparable words: case, accents, punctuation, word
 * order, possessives, plurals and (in prose) function words never count;
 * `words` also drops legal-form suffixes, `all` keeps them (so a typo in a suffix, "Crop"
 * for "Corp", still matches). Numbers, and with `names` a short text's dotted
 * names, are kept apart: another number or site is another request.
 */
export function normalizeText(value: string, names = true): { words: TextWords; all: TextWords; numbers: string } {
  const tokens = tokensOf(value);
  const all = tokens.map(stem);
  // Function words only in prose: in an identifier or a path ("loop_a.txt") every token names something.
  const prose = /\s/.test(value.trim());
  const content = tokens.filter((t) => !LEGAL_FORMS.has(t) && !(prose && STOP_WORDS.has(t))).map(stem);
  // Dotted names in a short text (a query's site or file: "site:instagram.com", "config.yaml") name one thing, as
  // numbers do. Code compares word for word anyway, and in long texts dotted calls (`pd.read_csv`) come and go.
  const dotted = names && tokens.length <= MAX_NAMED_TOKENS ? (value.toLowerCase().match(DOTTED_NAME) ?? []) : [];
  const numbers = [...new Set([...tokens.filter(isNumber), ...dotted])].sort().join(" ");
  return { words: wordsOf(content.length > 0 ? content : all), all: wordsOf(all), numbers };
}

// A shell command line or a snippet of code, not prose: chained or piped commands, substitutions, redirections.
// Its words are instructions, so a long one is not "the same request" with a few words changed.
const CODE = /&&|\|\||\s\|\s|\$\(|`|\s[12]?>{1,2}\s?\S|;\s*\w/;

// A list that is a command's argv (`["mkdir", "-p", dir]`): its words are instructions in order, so it
// compares as code, not as a set of tags. Named for a command, or carrying an option ("-p", "--all").
const ARGV_KEY = /^(command|cmd|argv|commands?_?line|exec)$/i;
// A command line is code even without a pipe or a chain: `grep -n X <long path>` and `grep -n Y <long path>` are two requests.
const isCommandLine = (key: string, value: string) => ARGV_KEY.test(key) && /\S\s+\S/.test(value.trim());
const isArgv = (key: string, list: readonly unknown[]) =>
  list.length > 1 && (ARGV_KEY.test(key) || list.some((v) => typeof v === "string" && /^--?[a-z]/i.test(v)));

// Texts' readings, by the text itself (and whether it is a command line): a call's features and its spelling
// key read the same values, and stemming their words is what costs.
const textReadings = new BoundedCache<string, FieldValue>(2_048);

function textValue(value: string, code = false, list = false): FieldValue {
  if (list) return readText(value, code, list);
  // A command line and the same words as prose read differently: the key says which.
  const key = code ? `\u0000${value}` : value;
  let field = textReadings.get(key);
  if (field === undefined) {
    field = readText(value, code, false);
    textReadings.set(key, field);
  }
  return field;
}

function readText(value: string, code: boolean, list: boolean): FieldValue {
  const text = value.trim();
  // An address is an identifier: any change, however small, names someone else.
  if (/^\S+@\S+$/.test(text)) return { kind: "exact", value: text.toLowerCase() };
  // So is a web address: another path is another page. Scheme, "www.", a trailing slash and the fragment never are.
  const url = /^(https?:\/\/)?(www\.)?([a-z0-9-]+(\.[a-z0-9-]+)+)(\/[^\s#]*)?(#\S*)?$/i.exec(text);
  if (url?.[1]) return { kind: "exact", value: `${url[3]!.toLowerCase()}${(url[5] ?? "").replace(/\/+(?=$|\?)/, "")}` };
  // And a file path: another file is another request, however much of the path two share. Path
  // separators, a leading "./", a trailing slash, case and the separators inside a name ("pricing_faq",
  // "Pricing-FAQ") are cosmetic, as they are in any identifier.
  if (/^[^\s]*[\\/][^\s]*$/.test(text) && !code) {
    const path = text.replace(/\\/g, "/").replace(/\/{2,}/g, "/").replace(/^\.\//, "").replace(/(?<=.)\/$/, "");
    return { kind: "exact", value: path.toLowerCase().replace(/[-_ ]+/g, "") };
  }
  // "42" and 42 ask for the same record.
  if (/^-?\d+(\.\d+)?$/.test(text)) return { kind: "number", value: Number(text) };
  const isCode = code || CODE.test(text);
  // Prose: words separated by spaces, neither code nor a list of tags or ids read as one text.
  return { kind: "text", ...normalizeText(text, !isCode), code: isCode, prose: !isCode && !list && /\s/.test(text) };
}

// Screen positions: `{x, y}`, `{start_x}`, `{coordinate: [x, y]}`. A click a few pixels off aims at the same
// spot; integers elsewhere are counts and ids, where another number is another request.
const POSITION_KEY = /^([xy][12]?|(start|end|from|to)_?[xy]|[xy]_?(coord(inate)?|pos(ition)?))$/i;
const POSITION_LIST_KEY = /^(coord(inate)?s?|point|pos(ition)?|xy)$/i;
const isPositionList = (key: string, list: readonly unknown[]) =>
  POSITION_LIST_KEY.test(key) && list.length >= 2 && list.length <= 4 && list.every((v) => typeof v === "number");
// Only a point's x and y: `add({x: 3, y: 5})` alone would be numbers like any other.
function pointKeys(fields: Record<string, unknown>): Set<string> | undefined {
  const keys = Object.keys(fields).filter((k) => typeof fields[k] === "number" && POSITION_KEY.test(k));
  return keys.some((k) => /x/i.test(k)) && keys.some((k) => /y/i.test(k)) ? new Set(keys) : undefined;
}

function collect(value: unknown, path: string, key: string, depth: number, out: Map<string, FieldValue>, position = false): void {
  if (out.size >= MAX_FIELDS) return;
  // Paging and pacing fields, and fields left unset (null, ""), never change what is asked.
  if ((key && CONTROL_KEY.test(key)) || value === null || value === "") return;
  if (typeof value === "string") out.set(path, textValue(value, isCommandLine(key, value)));
  else if (typeof value === "number") out.set(path, { kind: position ? "position" : "number", value });
  else if (Array.isArray(value) && isPositionList(key, value)) value.forEach((v, i) => out.set(`${path}.${i}`, { kind: "position", value: v as number }));
  else if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) {
    // A list of tags or ids: order does not matter, so it reads as one text.
    out.set(path, textValue(value.map(String).join(" "), isArgv(key, value), true));
  } else if (value !== null && typeof value === "object" && depth < MAX_DEPTH) {
    const point = Array.isArray(value) ? undefined : pointKeys(value as Record<string, unknown>);
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      collect(v, path ? `${path}.${k}` : k, Array.isArray(value) ? "" : k, depth + 1, out, point?.has(k));
    }
  } else out.set(path, { kind: "exact", value: JSON.stringify(value) ?? "undefined" });
}

function parse(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    // Clipped or malformed arguments: compare the text itself.
    return args;
  }
}

/** Build the comparable features of canonical arguments (uncached). */
export function argFeatures(args: string): ArgFeatures {
  const fields = new Map<string, FieldValue>();
  const parsed = parse(args);
  collect(parsed, "", "", 0, fields);
  const program = hasProgram(parsed);
  const narration = [...fields.keys()].filter((path) => NARRATION_KEY.test(path.slice(path.lastIndexOf(".") + 1)) || isCaption(path, program));
  if (narration.length < fields.size) for (const path of narration) fields.delete(path);
  return { shape: [...fields.keys()].sort().join("\u0000"), fields };
}

// Characters that make a text a pattern (a glob, a regex, an expression): there punctuation is part of
// what is asked, "test" and "test*" match different things.
const PATTERN_CHARS = /[*?|()[\]{}^$\\+<>=~&;`]/;
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;
// A question mark or a full stop closing prose is no wildcard.
const isPattern = (text: string) => PATTERN_CHARS.test(text.trim().replace(TRAILING_PUNCTUATION, ""));

// A pattern's spelling: case, accents, separators (space, "-", "_"), trailing punctuation and, when
// it has spaces, the order of its words never count; other punctuation does.
function spellPattern(value: string): string {
  const text = value.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().trim().replace(TRAILING_PUNCTUATION, "");
  const words = text.split(/[\s_-]+/).filter(Boolean);
  return /\s/.test(value.trim()) ? words.sort().join(" ") : words.join(" ");
}

// A text as request similarity reads it, without its tolerance for typos: prose and identifiers by the
// stems of their content words and by their numbers and names (stop words, possessives, plurals, word
// order, punctuation, separators and zero padding never count); an address, a path or a number by its
// normalized value; code and patterns by `spellPattern`.
function spellText(value: string, code: boolean): string | number {
  const field = textValue(value, code);
  if (field.kind !== "text") return field.value;
  return field.code || isPattern(value) ? spellPattern(value) : `${field.words.text}|${field.numbers}`;
}

function spell(value: unknown, key = "", top = true): unknown {
  if (typeof value === "string") return spellText(value, isCommandLine(key, value));
  if (Array.isArray(value)) return value.map((item) => spell(item, "", false));
  if (value !== null && typeof value === "object") {
    const fields = Object.entries(value as Record<string, unknown>).filter(([key]) => !CONTROL_KEY.test(key));
    // Narration beside real arguments is commentary; alone (a `think` tool's thought) it is the request.
    const program = top && hasProgram(value);
    const asked = fields.filter(([key]) => !NARRATION_KEY.test(key) && !isCaption(key, program));
    return Object.fromEntries((asked.length > 0 ? asked : fields).map(([key, v]) => [key, spell(v, key, false)]));
  }
  return value;
}

/** Keys under which two calls count as one request asked again (see `requestKeysOf`). */
export interface RequestKeys {
  /**
   * The arguments' hash, or, when they carry narration beside real arguments (a `task_progress` note, a
   * shell command's `description`), the hash without it.
   */
  identity: string;
  /**
   * The request spelled loosely, with its paging: two calls with one spelling ask for the
   * same thing in other words (a reworded query, another case, "ORD 0042" for "ord_42")
   * and the same page. Stricter than request similarity, which also forgives typos; used
   * where no result can say whether two calls were the same.
   */
  spelling: string;
}

const requestKeys = new BoundedCache<string, RequestKeys>(2_048);

/** The request keys of a call's arguments, computed once per argument set. */
export function requestKeysOf(call: CallRecord): RequestKeys {
  let keys = requestKeys.get(call.argsHash);
  if (keys === undefined && isClipped(call.args)) {
    keys = { identity: call.argsHash, spelling: call.argsHash };
    requestKeys.set(call.argsHash, keys);
  }
  if (keys === undefined) {
    const args = parse(call.args);
    const fields = args !== null && typeof args === "object" && !Array.isArray(args) ? Object.entries(args as Record<string, unknown>) : [];
    const program = hasProgram(args);
    const kept = fields.filter(([key]) => !NARRATION_KEY.test(key) && !isCaption(key, program));
    const identity = kept.length > 0 && kept.length < fields.length ? hashText(canonicalArgs(Object.fromEntries(kept))) : call.argsHash;
    const paging = canonicalArgs(Object.fromEntries(fields.filter(([key]) => CONTROL_KEY.test(key))));
    keys = { identity, spelling: `${hashText(canonicalArgs(spell(args)))}|${paging}` };
    requestKeys.set(call.argsHash, keys);
  }
  return keys;
}

// By argument hash alone: a record's hash string is hashed once for its lifetime, so the lookup
// costs what a lookup by record would, and a store's fresh copies of the records (a Redis store
// decodes new ones on every check) need no WeakMap entry each.
const byHash = new BoundedCache<string, ArgFeatures>(2_048);

/** Features of a call's arguments, parsed once and cached. */
export function featuresOf(call: CallRecord): ArgFeatures {
  let features = byHash.get(call.argsHash);
  if (!features) {
    // Cut arguments (a long file written, a long script) may differ past the cut: only their full hash tells.
    features = isClipped(call.args) ? { shape: "\u0000clipped", fields: new Map([["", { kind: "exact", value: call.argsHash }]]) } : argFeatures(call.args);
    byHash.set(call.argsHash, features);
  }
  return features;
}
