import { BoundedCache } from "../bounded-cache.js";
import type { CallRecord } from "../types.js";

/** One argument value reduced to what tells two requests apart. */
export type FieldValue =
  | { kind: "text"; words: TextWords; all: TextWords; numbers: string }
  | { kind: "number"; value: number }
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
// it is progress is judged by the results.
const CONTROL_KEY =
  /^(offset|limit|page|page_?(size|num|number|no|index|token)|per_?page|skip|top|start(_?(index|row))?|count|size|max_?(results|items|rows|count)|num_?(results|items|rows)|n|k|cursor|(next_?)?token|continuation(_?token)?|after|before|batch_?size|timeout(_?(ms|s|sec|seconds))?|wait(_?(ms|s|sec|seconds|for))?|delay(_?(ms|s|sec|seconds))?|(poll_?)?interval(_?(ms|s|sec|seconds))?|retry|retries|attempts?|max_?(wait|retries|attempts)(_?(ms|s|sec|seconds))?)$/i;

// Words that do not change what a free-text value names: legal-form suffixes and filler words.
const NOISE_WORDS = new Set([
  "corp", "corporation", "inc", "incorporated", "llc", "ltd", "limited", "co", "company", "plc", "gmbh", "ag",
  "sa", "llp", "lp", "pty", "bv", "nv", "the", "a", "an", "of", "to", "for", "in", "on", "and", "how", "what",
  "is", "my", "me", "please", "show", "find", "get",
]);

const MAX_DEPTH = 6;
const MAX_FIELDS = 64;

function wordsOf(list: string[]): TextWords {
  const sorted = list.sort();
  return { text: sorted.join(" "), list: sorted, set: new Set(sorted) };
}

/**
 * Reduce free text to comparable words: case, accents, punctuation and word
 * order never count; `words` also drops legal-form suffixes and filler words,
 * `all` keeps them (so a typo in a suffix, "Crop" for "Corp", still matches).
 */
export function normalizeText(value: string): { words: TextWords; all: TextWords; numbers: string } {
  const all = value
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const content = all.filter((w) => !NOISE_WORDS.has(w));
  // Numbers name things (an order id, a year, Q3): a different number is a different request.
  const numbers = all.filter((w) => /\d/.test(w)).sort().join(" ");
  return { words: wordsOf(content.length > 0 ? content : [...all]), all: wordsOf(all), numbers };
}

function textValue(value: string): FieldValue {
  // An address is an identifier: any change, however small, names someone else.
  if (/^\S+@\S+$/.test(value.trim())) return { kind: "exact", value: value.trim().toLowerCase() };
  return { kind: "text", ...normalizeText(value) };
}

function collect(value: unknown, path: string, key: string, depth: number, out: Map<string, FieldValue>): void {
  if (out.size >= MAX_FIELDS) return;
  // Paging and pacing fields, and fields left unset (null, ""), never change what is asked.
  if ((key && CONTROL_KEY.test(key)) || value === null || value === "") return;
  if (typeof value === "string") out.set(path, textValue(value));
  else if (typeof value === "number") out.set(path, { kind: "number", value });
  else if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) {
    // A list of tags or ids: order does not matter, so it reads as one text.
    out.set(path, textValue(value.map(String).join(" ")));
  } else if (value !== null && typeof value === "object" && depth < MAX_DEPTH) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      collect(v, path ? `${path}.${k}` : k, Array.isArray(value) ? "" : k, depth + 1, out);
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
  collect(parse(args), "", "", 0, fields);
  return { shape: [...fields.keys()].sort().join("\u0000"), fields };
}

// Two caches: by record (free when the same window is checked again) and by
// argument hash (stores hand out fresh copies of records on every check).
const byRecord = new WeakMap<CallRecord, ArgFeatures>();
const byHash = new BoundedCache<string, ArgFeatures>(2_048);

/** Features of a call's arguments, parsed once and cached. */
export function featuresOf(call: CallRecord): ArgFeatures {
  let features = byRecord.get(call);
  if (features) return features;
  features = byHash.get(call.argsHash);
  if (!features) {
    features = argFeatures(call.args);
    byHash.set(call.argsHash, features);
  }
  byRecord.set(call, features);
  return features;
}
