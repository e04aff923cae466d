import { hash } from "node:crypto";
import { configure } from "safe-stable-stringify";
import { isCallStampKey, maskVolatile, type Masked } from "./volatile.js";

// Sorted keys, BigInt as numbers-in-strings, cycles marked instead of thrown:
// a fingerprint must exist for anything a model or a tool can produce.
const stringify = configure({
  bigint: true,
  circularValue: "[Circular]",
  deterministic: true,
  maximumDepth: 64,
  maximumBreadth: 10_000,
});

const plainStringify = configure({ bigint: true, circularValue: "[Circular]", deterministic: false });

/** JSON text of any value a tool returns: BigInt, cycles and throwing getters never throw here. */
export function safeJson(value: unknown): string {
  try {
    return plainStringify(value) ?? String(value);
  } catch (error) {
    return `[Unserializable: ${(error as Error)?.message ?? "unknown"}]`;
  }
}

/** Stored canonical arguments are cut to this many characters; the hash covers all of them. */
export const MAX_CANONICAL_CHARS = 2_048;

// NFKC leaves ASCII as it is; most argument and output strings are ASCII and skip the ICU call.
const NON_ASCII = /[^\x00-\x7f]/;

function normalizeString(value: string): string {
  return (NON_ASCII.test(value) ? value.normalize("NFKC") : value).trim();
}

function valueReplacer(_key: string, value: unknown): unknown {
  if (typeof value === "string") return normalizeString(value);
  if (typeof value === "number" && Object.is(value, -0)) return 0;
  return value;
}

// A call's own stamp (callId, idempotencyKey, nonce) is not part of what it asks: dropped, so a fresh one each call is no new request.
function argsReplacer(key: string, value: unknown): unknown {
  return key !== "" && isCallStampKey(key) ? undefined : valueReplacer(key, value);
}

function toJson(value: unknown, replacer: (key: string, value: unknown) => unknown): string {
  try {
    return stringify(value, replacer) ?? "null";
  } catch (error) {
    // Getters that throw, exotic proxies: hash what we can say about it.
    return JSON.stringify(`[Unserializable: ${(error as Error)?.message ?? "unknown"}]`);
  }
}

/** Canonical JSON of tool arguments: key order, surrounding whitespace, Unicode form and the call's own stamp (call id, idempotency key, nonce) never matter. */
export function canonicalArgs(args: unknown): string {
  return toJson(args, argsReplacer);
}

/** A tool output's canonical JSON with volatile values masked, the generated ids masking took out, and whether it is a page snapshot's text. */
export function canonicalOutputParts(output: unknown): { canonical: string; ids: string[]; page: boolean } {
  let masked: Masked;
  try {
    masked = maskVolatile(output);
  } catch (error) {
    // Getters that throw, exotic proxies (never a text, so never a snapshot): hash what we can say about it.
    return { canonical: JSON.stringify(`[Unserializable: ${(error as Error)?.message ?? "unknown"}]`), ids: [], page: false };
  }
  return { canonical: toJson(masked.value, valueReplacer), ids: masked.ids, page: masked.page };
}

/** Canonical JSON of a tool output with volatile values (request ids, timestamps, fresh ids) masked. */
export function canonicalOutput(output: unknown): string {
  return canonicalOutputParts(output).canonical;
}

/** Short stable hash of a string (sha256, 128 bits, base64url). */
export function hashText(text: string): string {
  // The one-shot crypto.hash: the same digest as createHash, without a Hash object per call (several per checked call).
  return hash("sha256", text, "base64url").slice(0, 22);
}

/** Fingerprint of tool arguments: equal exactly when the canonical forms are equal. */
export function fingerprintArgs(args: unknown): string {
  return hashText(canonicalArgs(args));
}

/** Fingerprint of a tool output, stable across runs and blind to volatile fields. */
export function fingerprintOutput(output: unknown): string {
  return hashText(canonicalOutput(output));
}

/** Canonical arguments cut to the stored length. */
export function clipCanonical(canonical: string): string {
  return canonical.length <= MAX_CANONICAL_CHARS
    ? canonical
    : `${canonical.slice(0, MAX_CANONICAL_CHARS)}…`;
}

/** True when stored arguments were cut (`clipCanonical`): what they asked is known only by their hash. */
export const isClipped = (args: string) => args.length > MAX_CANONICAL_CHARS && args.endsWith("…");
