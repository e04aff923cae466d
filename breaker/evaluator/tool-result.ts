import type { RawOutcome } from "../outcome.js";
import { asRecord } from "./fields.js";

/** Tool message content as text or data: content blocks are joined, JSON stays text for the summarizer. */
export function contentOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  const texts = content.map((block) => {
    const b = asRecord(block);
    if (typeof block === "string") return block;
    return typeof b?.text === "string" ? b.text : typeof b?.content === "string" ? b.content : JSON.stringify(block);
  });
  return texts.join("\n");
}

/**
 * The outcome of a recorded tool result: an error when the format flags one,
 * else the output as given. Failures said only in the output ("Error: ...",
 * `{"ok": false}`, an exit code) are read by `summarizeOutcome`, as at runtime.
 */
export function outcomeOf(output: unknown, flaggedError: unknown): RawOutcome {
  if (flaggedError !== undefined && flaggedError !== null && flaggedError !== false) {
    return { error: flaggedError === true ? (typeof output === "string" && output ? output : "error") : flaggedError };
  }
  return { output };
}
