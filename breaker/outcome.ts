import { canonicalOutputParts, hashText } from "./canonical.js";
import { failureInOutput, isEmptyOutput, isInProgress, isTransientText } from "./output-signals.js";
import { readToolOutput } from "./tool-output.js";
import type { ToolOutcome } from "./types.js";

/** What a tool produced: a value, or an error (thrown, invalid input, timeout). */
export interface RawOutcome {
  output?: unknown;
  error?: unknown;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === "string" ? error : canonicalOutputParts(error).canonical;
}

function failed(kind: string, transient: boolean, canonical: string): ToolOutcome {
  return { kind: "error", fingerprint: hashText(`${kind}:${canonical}`), ...(transient ? { transient: true } : {}) };
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
    if (thrown) {
      const text = errorText(raw.error);
      return failed("error", isTransientText(text), canonicalOutputParts(text).canonical);
    }
    const { value, flaggedError } = readToolOutput(raw.output);
    const { canonical, ids } = canonicalOutputParts(value);
    const failure = failureInOutput(value) ?? (flaggedError ? { transient: isTransientText(canonical) } : undefined);
    if (failure) return failed("error", failure.transient, canonical);
    const inProgress = isInProgress(value);
    const kind = !inProgress && isEmptyOutput(value) ? "empty" : "ok";
    return {
      kind,
      fingerprint: hashText(`${kind}:${canonical}`),
      ...(ids.length > 0 ? { ids: hashText(ids.join("\n")) } : {}),
      ...(inProgress ? { inProgress: true } : {}),
    };
  } catch (error) {
    // Throwing getters or proxy traps in tool output: still an outcome, never an exception out of the breaker.
    return { kind: thrown ? "error" : "ok", fingerprint: hashText(`unserializable:${(error as Error)?.message ?? "unknown"}`) };
  }
}
