import { MASK, maskSecrets, safeJson, urlSecrets } from "../breaker/index.js";

/** Shorter values are not treated as secrets: replacing them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 8;

// Environment variables whose values are secrets by their name.
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

// Secrets recognisable by their shape, whatever process they come from. Each
// keeps the part that says what it was and masks the rest.
const PATTERNS: [RegExp, string][] = [
  // scheme://user:password@host: the password.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, `$1${MASK}@`],
  // Authorization: Bearer <token>, Basic <credentials>.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]{8,}=*/g, `$1 ${MASK}`],
  // OpenAI-style keys (sk-..., sk-proj-...), Anthropic (sk-ant-...).
  [/\bsk-[A-Za-z0-9_-]{16,}/g, `sk-${MASK}`],
  // GitHub, Slack and AWS access keys.
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, `gh_${MASK}`],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, `xox-${MASK}`],
  [/\bAKIA[0-9A-Z]{16}\b/g, `AKIA${MASK}`],
];

// One scan says whether any pattern is there at all: most text holds none.
const ANY_PATTERN = new RegExp(PATTERNS.map(([p]) => `(?:${p.source})`).join("|"), "i");

/**
 * Masks secrets in what leaves the graph: model errors, tool errors and tool
 * outputs, before they reach the state (and so the checkpoints and every
 * stream mode) or a log line. One instance per graph.
 */
export interface Redactor {
  /** The text with every known secret and every secret-shaped token masked. */
  text(value: string): string;
  /** The error with its message and stack masked, or the error itself when it holds no secret. */
  error(error: unknown): unknown;
  /** A JSON-like value (tool arguments) with every string in it masked; keys are kept. */
  value(value: unknown): unknown;
}

// Past this depth a value is masked as one JSON text (safeJson: a cycle or a stack overflow is a marker, not a throw).
const MAX_VALUE_DEPTH = 32;

/** The secrets an environment holds: values of *_KEY / *_TOKEN / *_SECRET / *PASSWORD variables, and URL passwords and secret query values. */
export function secretsOf(env: NodeJS.ProcessEnv): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (SECRET_NAME.test(name)) found.add(value);
    if (value.includes("://")) for (const secret of urlSecrets(value)) found.add(secret);
  }
  // Longest first: a secret that contains another is masked whole.
  return [...found].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** A redactor for the secrets of `env` and the shapes every secret of this kind has. */
export function createRedactor(env: NodeJS.ProcessEnv = process.env): Redactor {
  const secrets = secretsOf(env);
  const text = (value: string): string => {
    let out = maskSecrets(value, secrets);
    if (!ANY_PATTERN.test(out)) return out;
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  };
  const error = (err: unknown): unknown => {
    if (!(err instanceof Error)) return err;
    const message = text(err.message);
    const stack = err.stack === undefined ? undefined : text(err.stack);
    if (message === err.message && stack === err.stack) return err;
    // A new error: the original may be shared (a cached client's), and its own fields may hold the secret too.
    const redacted = new Error(message);
    redacted.name = err.name;
    redacted.stack = stack ?? "";
    const status = (err as { status?: unknown }).status;
    if (status !== undefined) Object.assign(redacted, { status });
    return redacted;
  };
  const value = (input: unknown, depth = 0): unknown => {
    if (typeof input === "string") return text(input);
    if (input === null || typeof input !== "object") return input;
    if (depth >= MAX_VALUE_DEPTH) return text(safeJson(input));
    if (Array.isArray(input)) return input.map((item) => value(item, depth + 1));
    return Object.fromEntries(Object.entries(input).map(([key, item]) => [key, value(item, depth + 1)]));
  };
  return { text, error, value: (input) => value(input) };
}
