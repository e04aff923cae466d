import { canonicalOutput, hashText } from "./canonical.js";
import type { OutcomeKind, ToolOutcome } from "./types.js";

/** What a tool produced: a value, or an error (thrown, invalid input, timeout). */
export interface RawOutcome {
  output?: unknown;
  error?: unknown;
}

// Short "nothing found" sentences that tools return instead of an empty list.
const NOTHING_FOUND =
  /^((no|none|nothing|null|n\/a|not found)\b|(found )?0 (results|matches|records|rows|items|hits)\b|(could not|couldn't|unable to|did not|didn't) find\b)/i;
const NOTHING_FOUND_MAX_CHARS = 200;

function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === "string") {
    const text = value.trim();
    return text === "" || text === "[]" || text === "{}" || (text.length <= NOTHING_FOUND_MAX_CHARS && NOTHING_FOUND.test(text));
  }
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") {
    const entries = Object.values(value as Record<string, unknown>);
    if (entries.length === 0) return true;
    // {results: [], total: 0}: a result envelope whose every list is empty.
    const lists = entries.filter(Array.isArray);
    return lists.length > 0 && lists.every((list) => list.length === 0);
  }
  return false;
}

function parseIfJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (!text.startsWith("{") && !text.startsWith("[")) return value;
  try {
    return JSON.parse(text);
  } catch {
    return value;
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === "string" ? error : canonicalOutput(error);
}

/** Classify a tool result and fingerprint it, the same way at runtime and offline. */
export function summarizeOutcome(raw: RawOutcome): ToolOutcome {
  const failed = raw.error !== undefined && raw.error !== null && raw.error !== false;
  try {
    if (failed) return { kind: "error", fingerprint: hashText(`error:${errorText(raw.error)}`) };
    const value = parseIfJson(raw.output);
    const kind: OutcomeKind = isEmptyValue(value) ? "empty" : "ok";
    return { kind, fingerprint: hashText(`${kind}:${canonicalOutput(value)}`) };
  } catch (error) {
    // Throwing getters or proxy traps in tool output: still an outcome, never an exception out of the breaker.
    const kind: OutcomeKind = failed ? "error" : "ok";
    return { kind, fingerprint: hashText(`${kind}:[Unserializable: ${(error as Error)?.message ?? "unknown"}]`) };
  }
}
