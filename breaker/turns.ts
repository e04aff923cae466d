import { eng } from "stopword";
import { tokensOf } from "./detectors/arg-features.js";

// Words a harness or a user says to keep an agent going, adding nothing to the task.
const CONTINUE_WORDS = new Set([
  ...eng,
  "continue", "continuing", "proceed", "go", "going", "ahead", "keep", "resume", "carry", "next", "on", "onward",
  "ok", "okay", "yes", "yeah", "yep", "sure", "please", "pls", "again", "retry", "try", "done", "finish", "thanks",
  "thank", "working", "work", "task", "come", "let", "lets", "s", "right", "good", "fine", "great",
]);
const MAX_CONTINUE_TOKENS = 12;

function normalized(text: string): string {
  return tokensOf(text).join(" ");
}

/**
 * True when a user message only asks the agent to go on: a harness's
 * "continue" / "please proceed" nudge, an empty message, or the same message
 * sent again. Such turns do not open a fresh loop window; a message that
 * brings anything new does.
 */
export function isContinuation(text: string, earlier: readonly string[]): boolean {
  const tokens = tokensOf(text);
  if (tokens.length === 0) return true;
  const own = tokens.join(" ");
  if (earlier.some((message) => normalized(message) === own)) return true;
  return tokens.length <= MAX_CONTINUE_TOKENS && tokens.every((t) => CONTINUE_WORDS.has(t));
}
