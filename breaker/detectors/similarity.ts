import { BoundedTable } from "../bounded-cache.js";
import type { CallRecord } from "../types.js";
import { featuresOf, type ArgFeatures, type FieldValue, type TextWords } from "./arg-features.js";

// Up to this many words every word must have a close counterpart (a name, a
// query, a path: one changed word is another request); longer prose may differ
// in a few words and still say the same thing, a long command line may not.
const SHORT_TEXT_WORDS = 12;
// Edit distance is quadratic. Only short words of short texts are compared
// fuzzily, within a budget of DP cells per pair of calls; past it words must
// match exactly, so crafted arguments cost microseconds more, never seconds.
const MAX_FUZZY_WORD_CHARS = 32;
const FUZZY_CELLS_PER_COMPARISON = 4_096;

/** The fuzzy-matching work one comparison of two calls may still do. */
interface Budget {
  cells: number;
}

// Reused DP rows: word similarity runs on the hot path and must not allocate.
const rows = [0, 1, 2].map(() => new Int32Array(MAX_FUZZY_WORD_CHARS + 1));

// Edit similarity of two words: 1 - optimal-string-alignment distance / longer length.
function wordSimilarity(a: string, b: string, budget: Budget): number {
  const longest = Math.max(a.length, b.length);
  // The distance is at least the length difference: skip words that cannot come close.
  if (Math.abs(a.length - b.length) / longest > 0.5) return 0;
  const cells = a.length * b.length;
  if (cells > budget.cells) return 0;
  budget.cells -= cells;
  let [before, row, next] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    next[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        d = Math.min(d, before[j - 2]! + 1);
      }
      next[j] = d;
    }
    [before, row, next] = [row, next, before];
  }
  return 1 - row[b.length]! / longest;
}

// How well each word of `from` finds a counterpart in `to`: the least match, and the sum of matches.
function matches(from: TextWords, to: TextWords, fuzzy: boolean, budget: Budget): { least: number; sum: number } {
  let least = 1;
  let sum = 0;
  for (const word of from.list) {
    let best = 0;
    if (to.set.has(word)) best = 1;
    else if (fuzzy && word.length <= MAX_FUZZY_WORD_CHARS && !/\d/.test(word)) {
      for (const other of to.list) {
        if (other.length <= MAX_FUZZY_WORD_CHARS) best = Math.max(best, wordSimilarity(word, other, budget));
      }
    }
    least = Math.min(least, best);
    sum += best;
  }
  return { least, sum };
}

// `strict`: every word must find a counterpart, as in short texts, whatever the length (code).
function wordsSimilarity(a: TextWords, b: TextWords, budget: Budget, strict = false): number {
  if (a.text === b.text) return 1;
  const short = a.list.length <= SHORT_TEXT_WORDS && b.list.length <= SHORT_TEXT_WORDS;
  const ab = matches(a, b, short, budget);
  if ((short || strict) && ab.least === 0) return 0;
  const ba = matches(b, a, short, budget);
  if (short || strict) return Math.min(ab.least, ba.least);
  return (ab.sum + ba.sum) / (a.list.length + b.list.length);
}

// Pixels a click may drift and still aim at the same spot: less than any control's size.
const PIXEL_DRIFT = 10;

/** Similarity (0..1) of two argument values: normalized words for text, relative drift for numbers. */
export function valueSimilarity(a: FieldValue, b: FieldValue, budget: Budget = { cells: FUZZY_CELLS_PER_COMPARISON }): number {
  if (a.kind === "text" && b.kind === "text") {
    if (a.numbers !== b.numbers) return 0;
    const strict = a.code || b.code;
    const content = wordsSimilarity(a.words, b.words, budget, strict);
    return content === 1 ? 1 : Math.max(content, wordsSimilarity(a.all, b.all, budget, strict));
  }
  if (a.kind === "number" && b.kind === "number") {
    if (a.value === b.value) return 1;
    // Integers are counts and ids: another integer asks for something else.
    if (Number.isInteger(a.value) && Number.isInteger(b.value)) return 0;
    const drift = Math.abs(a.value - b.value) / Math.max(Math.abs(a.value), Math.abs(b.value));
    return drift <= 0.01 ? 1 - drift : 0;
  }
  if (a.kind === "position" && b.kind === "position") {
    const drift = Math.abs(a.value - b.value);
    return drift <= PIXEL_DRIFT ? 1 - drift / 100 : 0;
  }
  return a.kind === "exact" && b.kind === "exact" && a.value === b.value ? 1 : 0;
}

// The least similar field of two argument sets by `compare`; different shapes score 0.
function leastField(a: ArgFeatures, b: ArgFeatures, compare: (x: FieldValue, y: FieldValue) => number): number {
  if (a.shape !== b.shape) return 0;
  let least = 1;
  for (const [path, value] of a.fields) {
    const other = b.fields.get(path);
    least = Math.min(least, other ? compare(value, other) : 0);
    if (least === 0) break;
  }
  return least;
}

/** Similarity of two argument sets: the least similar field decides, and different shapes score 0. */
export function argsSimilarity(a: ArgFeatures, b: ArgFeatures): number {
  const budget = { cells: FUZZY_CELLS_PER_COMPARISON };
  return leastField(a, b, (x, y) => valueSimilarity(x, y, budget));
}

// Scores by argument-hash pair, the lesser hash first: each check compares the candidate with the
// same window the last check saw, so most pairs were scored already.
const PAIRED_HASHES = 1_024;
const PAIRS_PER_HASH = 64;
const pairs = new BoundedTable<number>(PAIRED_HASHES, PAIRS_PER_HASH);
const loosePairs = new BoundedTable<number>(PAIRED_HASHES, PAIRS_PER_HASH);

function pairScore(a: CallRecord, b: CallRecord, cache: BoundedTable<number>, score: (x: ArgFeatures, y: ArgFeatures) => number): number {
  const aFirst = a.argsHash < b.argsHash;
  const low = aFirst ? a.argsHash : b.argsHash;
  const high = aFirst ? b.argsHash : a.argsHash;
  let found = cache.get(low, high);
  if (found === undefined) {
    found = score(featuresOf(a), featuresOf(b));
    cache.set(low, high, found);
  }
  return found;
}

/** True when two calls ask the same tool for the same thing, up to cosmetic differences. */
export function sameRequest(a: CallRecord, b: CallRecord, threshold: number): boolean {
  if (a.tool !== b.tool) return false;
  return a.argsHash === b.argsHash || pairScore(a, b, pairs, argsSimilarity) >= threshold;
}

// Share of the smaller word set found in the larger: "promotion readiness evidence" in "evidence of
// promotion readiness for the window". Exact stems only; numbers must agree (another number is another request).
function containment(a: FieldValue, b: FieldValue): number {
  if (a.kind !== "text" || b.kind !== "text") return valueSimilarity(a, b);
  // The same words are the same value, however few (a recipient beside a reworded message).
  if (a.numbers !== b.numbers || a.code || b.code || a.words.text === b.words.text) return valueSimilarity(a, b);
  // A letter alone ("move N & S") names no subject: only words count, and one shared word is no subject either.
  const words = (t: TextWords) => t.list.filter((word) => word.length > 1);
  const [small, large] = words(a.words).length <= words(b.words).length ? [a.words, b.words] : [b.words, a.words];
  const subject = words(small);
  if (subject.length < 2) return 0;
  return subject.filter((word) => large.set.has(word)).length / subject.length;
}

const looseSimilarity = (a: ArgFeatures, b: ArgFeatures) => leastField(a, b, containment);

/**
 * True when two calls ask the same tool about the same subject in other
 * words: every field alike, the words of a text field mostly shared (a query
 * reworded with words added or dropped). Too loose to make one request on
 * its own; the detectors use it only where the answers show it.
 */
export function looselySimilar(a: CallRecord, b: CallRecord, threshold: number): boolean {
  if (a.tool !== b.tool) return false;
  return a.argsHash === b.argsHash || pairScore(a, b, loosePairs, looseSimilarity) >= threshold;
}

// 1 when two argument sets differ in prose fields alone, with the same numbers in them, and agree on at least one
// field that names what is asked (a command, a target, an id; a flag names nothing): what is asked stays, only
// the words around it change. 0 otherwise.
function proseApart(a: ArgFeatures, b: ArgFeatures): number {
  let substance = false;
  const least = leastField(a, b, (x, y) => {
    if (valueSimilarity(x, y) === 1) {
      if (!(x.kind === "exact" && (x.value === "true" || x.value === "false"))) substance = true;
      return 1;
    }
    return x.kind === "text" && y.kind === "text" && x.prose && y.prose && x.numbers === y.numbers ? 1 : 0;
  });
  return least === 1 && substance ? 1 : 0;
}

const prosePairs = new BoundedTable<number>(PAIRED_HASHES, PAIRS_PER_HASH);

/**
 * True when two calls of one tool make the same request with different prose
 * beside it (a harness's "brief", a note to the user): a command, a target or
 * an id the same, only the free text changed. The text may be the request
 * (a search's query) or commentary on it; the detectors use this only where
 * the answers show it is commentary: the same answer to two such calls.
 */
export function proseVariants(a: CallRecord, b: CallRecord): boolean {
  if (a.tool !== b.tool || a.argsHash === b.argsHash) return false;
  return pairScore(a, b, prosePairs, proseApart) === 1;
}
