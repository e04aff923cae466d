import type { RawOutcome } from "../outcome.js";
import { asRecord } from "./fields.js";

// Openings of text that reports a failure, for formats without an error flag:
// "Error: ...", "ToolError: ...", "Permission denied", "HTTP 503", "Request timed out", "Invalid ...".
const FAILURE_OPENINGS = [
  "(error|exception|traceback|fatal|failed|failure|panic)\\b",
  "[\\w.]*(Error|Exception)\\b\\s*[:(]",
  "(permission|access) denied\\b",
  "(unauthori[sz]ed|forbidden|bad request|too many requests|rate[ -]limit(ed)?|service unavailable|internal server error|bad gateway|gateway time-?out)\\b",
  "connection (refused|reset|closed|timed out)\\b",
  "(request |operation )?timed? ?out\\b",
  "(http|status( code)?) ?[45]\\d\\d\\b",
  "[45]\\d\\d (\\w+ ){0,2}(error|not found|unavailable|forbidden|unauthorized|timeout)\\b",
  "invalid\\b",
  // "Could not find ..." is a miss, which the summarizer already reads as empty.
  "(cannot|can't|unable to|could not|couldn't)\\b(?! find)",
];
const ERROR_TEXT = new RegExp(`^\\s*(${FAILURE_OPENINGS.join("|")})`, "i");

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

function errorInData(value: unknown): boolean {
  let data = value;
  if (typeof value === "string" && value.trim().startsWith("{")) {
    try {
      data = JSON.parse(value);
    } catch {
      return false;
    }
  }
  const record = asRecord(data);
  if (!record) return false;
  const error = record.error;
  return (error !== undefined && error !== null && error !== false && error !== "") || record.status === "error" || record.isError === true;
}

/** True when a tool's output reads as a failure, for formats that carry no error flag. */
export function looksLikeError(output: unknown): boolean {
  return (typeof output === "string" && ERROR_TEXT.test(output)) || errorInData(output);
}

/** The outcome of a tool result: an error when flagged (or when the output reads as one), else the output. */
export function outcomeOf(output: unknown, flaggedError: unknown): RawOutcome {
  if (flaggedError !== undefined && flaggedError !== null && flaggedError !== false) {
    return { error: flaggedError === true ? (typeof output === "string" && output ? output : "error") : flaggedError };
  }
  return looksLikeError(output) ? { error: typeof output === "string" ? output : JSON.stringify(output) } : { output };
}
