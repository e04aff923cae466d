import { eng } from "stopword";
import { tokensOf } from "./detectors/arg-features.js";
import * as otherLanguages from "./other-languages.js";
import { HASH_IDS } from "./volatile.js";

// Words a harness says to keep an agent going, adding nothing to the task. "Try again" is not
// among them: a person asking for another attempt opens a new turn (session_repeat watches those).
const CONTINUE_WORDS = new Set([
  ...eng,
  "continue", "continuing", "proceed", "go", "going", "ahead", "keep", "resume", "carry", "next", "on", "onward",
  "ok", "okay", "yes", "yeah", "yep", "sure", "please", "pls", "done", "finish", "thanks",
  "thank", "working", "work", "task", "come", "let", "lets", "s", "right", "good", "fine", "great",
  ...otherLanguages.CONTINUE_WORDS.flatMap(tokensOf),
]);
const MAX_CONTINUE_TOKENS = 12;

/** What a user message says, normalized: the key under which the same message sent again is recognised. */
export function turnKey(text: string): string {
  return tokensOf(text).join(" ");
}

/**
 * True when a user message only asks the agent to go on: a harness's
 * "continue" / "please proceed" nudge, an empty message, or the same message
 * sent again (`said` holds the `turnKey`s of the earlier ones since the model
 * last answered: a person may ask again after an answer). Such turns do not
 * open a fresh loop window; a message that brings anything new does.
 */
export function isContinuation(text: string, said: ReadonlySet<string>): boolean {
  const tokens = tokensOf(text);
  if (tokens.length === 0 || said.has(tokens.join(" "))) return true;
  // Ids a harness stamps on the messages it sends (a UUID, a hex digest) are no word of the message's own.
  const words = tokensOf(HASH_IDS.reduce((rest, id) => rest.replace(id, " "), text));
  return words.length <= MAX_CONTINUE_TOKENS && words.every((t) => CONTINUE_WORDS.has(t));
}
