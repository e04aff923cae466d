import { BoundedCache } from "./bounded-cache.js";
import { canonicalOutputParts, hashText } from "./canonical.js";
import { failureCause } from "./failure-cause.js";
import { failureInOutput, failureSignal, isCancellation, isEmptyOutput, isInProgress, spokenText, type FailureSignal } from "./output-signals.js";
import { keyWords } from "./key-words.js";
import { searchFoundNothing } from "./search-exit.js";
import { readToolOutput } from "./tool-output.js";
import type { ToolOutcome } from "./types.js";

/** What a tool produced: a value, or an error (thrown, invalid input, timeout). */
export interface RawOutcome {
  output?: unknown;
  error?: unknown;
  /**
   * The arguments of the call, when the caller has them: a result that only
   * echoes them ("Cannot parse path "/docs/Pricing-FAQ.md"") reads the same
   * whichever spelling of the request it echoes.
   */
  args?: unknown;
  /**
   * The name of the tool called, when the caller has it: an error that names
   * its own tool ("Unknown tool: Miro") reads the same whichever tool it names.
   */
  tool?: string;
}

// Argument values long enough to be recognised when a result repeats them.
const MIN_ECHO_CHARS = 3;
const MAX_ECHOES = 16;
const DIGITS_ONLY = /^\d+$/;

// A plain function, not a closure: one runs on every tool result.
function collectEchoes(value: unknown, depth: number, found: string[]): void {
  if (found.length >= MAX_ECHOES || depth > 4) return;
  if (typeof value === "string") {
    const text = value.trim();
    if (text.length >= MIN_ECHO_CHARS && !DIGITS_ONLY.test(text)) found.push(text);
  } else if (value !== null && typeof value === "object") {
    for (const item of Object.values(value as Record<string, unknown>)) collectEchoes(item, depth + 1, found);
  }
}

function echoesOf(args: unknown): string[] {
  const found: string[] = [];
  collectEchoes(args, 0, found);
  // Longest first, so a value is masked before any shorter value inside it.
  return found.length > 1 ? found.sort((a, b) => b.length - a.length) : found;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// The pattern of each argument value lately echoed: a model repeats its arguments, and a pattern
// is built once, not on every result. Bounded: the values are the model's. (A global pattern is
// safe to share: replace() starts it at 0 and leaves it there.)
const echoPatterns = new BoundedCache<string, RegExp>(256);

function echoPattern(echo: string): RegExp {
  let pattern = echoPatterns.get(echo);
  if (!pattern) {
    const escaped = JSON.stringify(echo).slice(1, -1);
    // A whole token only: "google" echoed is masked, the "google" inside "start_google_auth" is not.
    pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(escaped)}(?![\\p{L}\\p{N}_])`, "giu");
    echoPatterns.set(echo, pattern);
  }
  return pattern;
}

/** Canonical text with the call's own argument values (`echoesOf`) masked where the result repeats them. */
function withoutEchoes(canonical: string, echoes: readonly string[]): string {
  let out = canonical;
  for (const echo of echoes) out = out.replace(echoPattern(echo), "<arg>");
  return out;
}

// A word worth recognising: a name, an identifier, a part of a path.
const WORD = /[\p{L}_][\p{L}\p{N}_]{2,}/gu;

/** An error's text with every word of the call's arguments masked: what kind of failure it is, whatever it names. */
function shapeOf(canonical: string, echoes: readonly string[]): string {
  const words = new Set(echoes.flatMap((echo) => echo.toLowerCase().match(WORD) ?? []));
  return words.size === 0 ? canonical : canonical.replace(WORD, (word) => (words.has(word.toLowerCase()) ? "<arg>" : word));
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === "string" ? error : canonicalOutputParts(error).canonical;
}

// An error's text with the called tool's own name masked, when it names it: what the harness says about
// any tool it was asked for ("Unknown tool: <tool>"), whatever the tool.
function aboutToolOf(shape: string, tool: string | undefined): string | undefined {
  if (!tool || tool.length < MIN_ECHO_CHARS) return undefined;
  // Read through a harness's wrapper that names the tool it ran ("query_crm failed: ..."): the tool's own words decide.
  const unwrapped = shape.replace(failedWrapper(tool), '"');
  const masked = withoutEchoes(unwrapped, [tool]);
  return masked === unwrapped ? undefined : hashText(`tool:${masked}`);
}

const wrappers = new BoundedCache<string, RegExp>(256);

// The opening a harness puts on a tool's error, inside the canonical JSON string: `"Error: <tool> failed: `.
function failedWrapper(tool: string): RegExp {
  let wrapper = wrappers.get(tool);
  if (!wrapper) {
    wrapper = new RegExp(`^"(error:\\s*)?${escapeRegExp(JSON.stringify(tool).slice(1, -1))} failed:\\s*`, "i");
    wrappers.set(tool, wrapper);
  }
  return wrapper;
}

function failed(kind: string, signal: FailureSignal, canonical: string, echoes: readonly string[], tool: string | undefined, text: string): ToolOutcome {
  const shape = shapeOf(canonical, echoes);
  const aboutTool = aboutToolOf(shape, tool);
  const cause = failureCause(text);
  return {
    kind: "error",
    fingerprint: hashText(`${kind}:${canonical}`),
    ...(signal.transient ? { transient: true } : {}),
    ...(signal.repeatRefused ? { repeatRefused: true } : {}),
    ...(shape !== canonical ? { shape: hashText(`${kind}:${shape}`) } : {}),
    ...(aboutTool ? { aboutTool } : {}),
    ...(cause ? { cause: hashText(`cause:${cause}`) } : {}),
  };
}

/** The handle of a piece of work an id names: its last token ("session ID 3" -> "3", "job_8f3a2c"), hashed. */
export function handleHash(token: string): string {
  return hashText(`handle:${token.toLowerCase()}`).slice(0, 12);
}

function handlesOf(ids: readonly string[]): string[] {
  const handles = new Set<string>();
  for (const id of ids.slice(0, MAX_ECHOES)) {
    const token = /[\p{L}\p{N}_-]+$/u.exec(id.trim())?.[0];
    if (token) handles.add(handleHash(token));
  }
  return [...handles];
}

// A result's own report that the action changed what it acts on, as a browser harness compares the page
// before and after a click: a top-level flag `changed`, `stateProgressed`, `page_changed` set to true.
const CHANGE_WORDS = new Set(["changed", "progressed"]);

function reportsChange(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.entries(value as Record<string, unknown>).some(([key, item]) => item === true && CHANGE_WORDS.has(keyWords(key).at(-1) ?? ""));
}

// A call the harness never ran: an error without result, which no streak of failures counts.
function cancelled(text: string): ToolOutcome {
  return { kind: "error", fingerprint: hashText(`cancelled:${text.trim()}`), cancelled: true };
}

/**
 * Classify a tool result and fingerprint it, the same way at runtime and
 * offline: an error whether it was thrown or only said in the output, empty
 * whether as `[]`, `{count: 0}` or "No results", and a fingerprint blind to
 * the values that change on every call (request ids, timestamps, fresh ids).
 */
export function summarizeOutcome(raw: RawOutcome): ToolOutcome {
  const thrown = raw.error !== undefined && raw.error !== null && raw.error !== false;
  try {
    const echoes = echoesOf(raw.args);
    if (thrown) {
      const text = errorText(raw.error);
      if (isCancellation(text)) return cancelled(text);
      return failed("error", failureSignal(text), withoutEchoes(canonicalOutputParts(text).canonical, echoes), echoes, raw.tool, text);
    }
    const { value, flaggedError } = readToolOutput(raw.output);
    if (typeof value === "string" && isCancellation(value)) return cancelled(value);
    const parts = canonicalOutputParts(value);
    const { ids } = parts;
    const canonical = withoutEchoes(parts.canonical, echoes);
    const inProgress = isInProgress(value);
    const said = failureInOutput(value);
    // A non-zero exit beside work still in progress reports its state (`gh pr checks` exits 8 while pending); a
    // search's exit 1 when it printed nothing says no line matched.
    const noMatch = said?.exitCodeOnly === true && searchFoundNothing(raw.args, value);
    const failure = (said?.exitCodeOnly && (inProgress || noMatch) ? undefined : said) ?? (flaggedError ? failureSignal(canonical) : undefined);
    if (failure) return failed("error", failure, canonical, echoes, raw.tool, spokenText(value));
    const kind = noMatch || (!inProgress && isEmptyOutput(value, echoes)) ? "empty" : "ok";
    return {
      kind,
      fingerprint: hashText(`${kind}:${canonical}`),
      ...(ids.length > 0 ? { ids: hashText(ids.join("\n")) } : {}),
      ...(inProgress ? { inProgress: true } : {}),
      ...(inProgress && ids.length > 0 ? { handles: handlesOf(ids) } : {}),
      // Read while masking (a snapshot's references are masked): the text is not scanned twice.
      ...(parts.page ? { page: true } : {}),
      ...(kind === "ok" && reportsChange(value) ? { changed: true } : {}),
    };
  } catch (error) {
    // Throwing getters or proxy traps in tool output: still an outcome, never an exception out of the breaker.
    return { kind: thrown ? "error" : "ok", fingerprint: hashText(`unserializable:${(error as Error)?.message ?? "unknown"}`) };
  }
}
