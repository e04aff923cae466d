import { MAX_SESSION_ID_LENGTH } from "../breaker/index.js";

/** Longest session id a route accepts; the graph's own ids (`thread:<uuid>`) are far shorter. */
export const MAX_ROUTE_SESSION_ID_LENGTH = Math.min(1_024, MAX_SESSION_ID_LENGTH);

// Half of a UTF-16 pair without its other half: no text, and no store key, should hold one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A session id from a URL, or why it was refused. */
export type SessionParam = { ok: true; sessionId: string } | { ok: false; message: string };

/**
 * Read the `:id` of a session route. Session ids come from callers and end
 * up in store keys and logs: empty, overlong, or holding control characters
 * (a newline forging a log line) is refused with a sentence saying why.
 */
export function parseSessionParam(raw: string | undefined): SessionParam {
  const sessionId = raw ?? "";
  if (sessionId.length === 0) return { ok: false, message: "The session id is empty." };
  if (sessionId.length > MAX_ROUTE_SESSION_ID_LENGTH) {
    return { ok: false, message: `The session id is ${sessionId.length} characters long; at most ${MAX_ROUTE_SESSION_ID_LENGTH} are accepted.` };
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(sessionId)) {
    return { ok: false, message: "The session id holds control characters." };
  }
  if (LONE_SURROGATE.test(sessionId)) return { ok: false, message: "The session id is not well-formed Unicode." };
  return { ok: true, sessionId };
}
