/** What a person decided on a trip, given as the resume value of the `circuit_open` interrupt. */
export type ReviewDecision = { action: "stop" } | { action: "continue"; hint: string };

/** The resume values a `circuit_open` interrupt accepts, as a person would type them. */
export const REVIEW_ANSWERS = `{"action":"stop"} to end the run, or {"action":"continue","hint":"what to do differently"} to let it go on`;

/** Longest hint accepted: it becomes a message to the model. */
export const MAX_HINT_LENGTH = 4_000;

/** A resume value the interrupt cannot use, with the sentence that says why. */
export interface RefusedDecision {
  code: "INVALID_RESUME";
  message: string;
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

const refused = (value: unknown, why: string): RefusedDecision => ({
  code: "INVALID_RESUME",
  message: `The resume value ${shown(value)} ${why}. Resume with ${REVIEW_ANSWERS}.`,
});

/**
 * Read a person's resume value: `{ action: "stop" }` or `{ action:
 * "continue", hint? }`, also as JSON text (a form may send what was typed).
 * Anything else is refused with a sentence saying what is accepted, never
 * thrown: the node asks again, so the thread stays paused.
 */
export function parseReviewDecision(value: unknown): ReviewDecision | RefusedDecision {
  let input = value;
  if (typeof input === "string") {
    try {
      input = JSON.parse(input);
    } catch {
      return refused(value, "is not JSON");
    }
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) return refused(value, "is not an object");
  const { action, hint, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) return refused(value, `has unknown field${extra.length > 1 ? "s" : ""} ${extra.map((k) => `"${k}"`).join(", ")}`);
  if (action === "stop") return hint === undefined ? { action } : refused(value, 'has a hint, which only "continue" takes');
  if (action !== "continue") return refused(value, 'needs "action": "stop" or "continue"');
  if (hint !== undefined && typeof hint !== "string") return refused(value, 'has a "hint" that is not text');
  if ((hint ?? "").length > MAX_HINT_LENGTH) return refused(value, `has a hint longer than ${MAX_HINT_LENGTH} characters`);
  return { action, hint: (hint ?? "").trim() };
}

/** True for a refused resume value. */
export function isRefused(decision: ReviewDecision | RefusedDecision): decision is RefusedDecision {
  return "code" in decision;
}
