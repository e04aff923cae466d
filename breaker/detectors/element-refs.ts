import { BoundedCache } from "../bounded-cache.js";
import { memoByCall } from "../call-memo.js";
import { keyWords } from "../key-words.js";
import type { CallRecord } from "../types.js";

// Keys that name an element of a page snapshot by its reference: `ref` (Playwright MCP), `bid` (BrowserGym),
// `index` (browser-use), `element_id`, `node_ref`.
const REF_LAST_WORDS = new Set(["ref", "reference", "bid", "index", "idx"]);
const REF_OWNERS = new Set(["element", "node", "target"]);
// A reference as snapshots hand them out: a short letter prefix and a number (`E42`, `e12`, `260`).
const REF_VALUE = /^[A-Za-z]{0,3}\d{1,6}$/;

function isRefKey(key: string): boolean {
  const words = keyWords(key);
  const last = words.at(-1);
  if (last === undefined) return false;
  return REF_LAST_WORDS.has(last) || (last === "id" && words.some((w) => REF_OWNERS.has(w)));
}

const isRefValue = (value: unknown) => (typeof value === "string" || typeof value === "number") && REF_VALUE.test(String(value));

// The arguments as fields; none when they are not an object (or were cut to the stored length).
const parsed = memoByCall<Record<string, unknown> | null>(2_048, (args) =>
  args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : null,
);

function refVariants(a: CallRecord, b: CallRecord): boolean {
  const x = parsed(a);
  const y = parsed(b);
  if (!x || !y) return false;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  let differs = false;
  for (const key of keys) {
    if (!(key in y)) return false;
    if (JSON.stringify(x[key]) === JSON.stringify(y[key])) continue;
    if (!isRefKey(key) || !isRefValue(x[key]) || !isRefValue(y[key])) return false;
    differs = true;
  }
  return differs;
}

const verdicts = new BoundedCache<string, boolean>(4_096);

/**
 * True when two calls of one tool differ only in the element reference they
 * name (`{ref: "E42"}`, `{ref: "E58"}`): on a page whose snapshot renumbers
 * its elements, possibly the same element under a new number. Too weak on its
 * own; the detectors use it only when both got the same page back.
 */
export function elementRefVariants(a: CallRecord, b: CallRecord): boolean {
  if (a.tool !== b.tool || a.argsHash === b.argsHash) return false;
  const key = a.argsHash < b.argsHash ? `${a.argsHash}${b.argsHash}` : `${b.argsHash}${a.argsHash}`;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = refVariants(a, b);
    verdicts.set(key, verdict);
  }
  return verdict;
}
