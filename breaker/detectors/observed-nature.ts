import { BoundedCache } from "../bounded-cache.js";
import { keyWords } from "../key-words.js";
import type { CallRecord, ToolNature } from "../types.js";

/**
 * The nature a call's behaviour shows: an identical call whose successful
 * result has moved on to new values at least twice (a job status, a queue
 * length), never back to one it gave before, is being watched: it is
 * polling. One change is no pattern (a file's contents, then "unchanged since
 * the last read"), and a result that flips back shows no such thing either.
 * Undefined when nothing shows.
 */
export function observedNature(candidate: CallRecord, run: readonly CallRecord[]): ToolNature | undefined {
  const seen = new Set<string>();
  let last: string | undefined;
  let moves = 0;
  for (const call of run) {
    if (call.tool !== candidate.tool || call.argsHash !== candidate.argsHash || call.outcome?.kind !== "ok") continue;
    const result = call.outcome.fingerprint;
    if (result !== last) {
      if (seen.has(result)) return undefined;
      if (last !== undefined) moves++;
    }
    seen.add(result);
    last = result;
  }
  return moves >= 2 ? "polling" : undefined;
}

// Verbs whose every call acts on someone outside the run: a message sent, money moved, an order placed,
// a session ended. Done twice, it is done twice.
const OUTWARD_VERB =
  /^(send|post|publish|notify|alert|email|mail|sms|tweet|reply|broadcast|charge|pay|refund|purchase|buy|order|book|reserve|invite|logout|signout)$/;
// Words that make the name a read, a reckoning or a preparation of such a thing ("get_order", "draft_email",
// "calculate_order_total"),
// or a send to a program rather than to someone: keys to a terminal, input to a process, a request to an API.
const NOT_AN_ACT =
  /^(get|read|list|search|find|fetch|query|show|view|check|lookup|describe|count|status|history|details|info|track|tracking|draft|compose|preview|validate|verify|estimate|quote|calculate|compute|total|summari[sz]e|summary|analy[sz]e|inspect|format|cancel|keys?|keystrokes?|input|stdin|command|cmd|request|signal)$/;

/**
 * The nature a tool's name declares when it declares none itself: a tool
 * named for an act on the outside world (`send_message`, `channel_send`,
 * `issue_refund`, `log_out`) is side-effecting, so its second identical call
 * is the same message sent again. Undefined for any other name.
 */
export function namedNature(tool: string): ToolNature | undefined {
  let nature = namedNatures.get(tool);
  if (nature === undefined) {
    nature = natureOfName(tool);
    namedNatures.set(tool, nature);
  }
  return nature ?? undefined;
}

// Read on every check, so a name is split once. Bounded: tool names come from the model, which can invent any.
const namedNatures = new BoundedCache<string, ToolNature | null>(1_024);

function natureOfName(tool: string): ToolNature | null {
  const words = keyWords(tool);
  if (words.some((w) => NOT_AN_ACT.test(w))) return null;
  // Phrasal verbs written as two words: log_out, sign_out.
  const joined = words.slice(1).map((w, i) => words[i] + w);
  return words.some((w) => OUTWARD_VERB.test(w)) || joined.some((w) => OUTWARD_VERB.test(w)) ? "side_effecting" : null;
}
