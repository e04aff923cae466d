import type { CallRecord, CircuitRecord, ToolOutcome, UsageTotals } from "../types.js";
import { freshCircuit, type NewCall } from "./store.js";

/** A call split the way the record script needs it: the id prefix it searches by, and the rest. */
export interface EncodedCall {
  /** `{"id":<json id>,`: the exact start of this call's window entry. */
  idPrefix: string;
  /** The entry after `step` and `at`: `"tool":...,"run":...}`. */
  body: string;
  /** Usage as integer strings, "0" when absent. */
  usage: [string, string, string];
}

/** The start of the window entry of a call id. */
export function idPrefix(callId: string): string {
  return `{"id":${JSON.stringify(callId)},`;
}

// HINCRBY only takes integers that fit in 64 bits; usage is whole already.
function integerArg(value: number): string {
  const n = Math.round(value);
  return n > 0 ? String(Math.min(n, Number.MAX_SAFE_INTEGER)) : "0";
}

/** Encode a new call for the record script. */
export function encodeCall(call: NewCall): EncodedCall {
  const { tool, args, argsHash, run, usage } = call;
  return {
    idPrefix: idPrefix(call.id),
    body: JSON.stringify({ tool, args, argsHash, run }).slice(1),
    usage: usage
      ? [integerArg(usage.inputTokens), integerArg(usage.outputTokens), integerArg(usage.costMicros)]
      : ["0", "0", "0"],
  };
}

/** A session as the record and snapshot scripts return it (cjson-encoded). */
interface ScriptReply {
  now: string | number;
  duplicate: boolean;
  /** cjson writes an empty table as `{}`. */
  window: string[] | Record<string, never>;
  outcomes: Record<string, string>;
  sid: string | false;
  circuit: string | false;
  run: string | false;
  asOf: string | false;
  total: string | number | false;
  runStart: string | false;
  inTok: string | false;
  outTok: string | false;
  cost: string | false;
}

/** A script reply decoded into the store's types. */
export interface DecodedSession {
  sessionId: string;
  now: number;
  duplicate: boolean;
  window: CallRecord[];
  circuit: CircuitRecord;
  usage: UsageTotals;
  totalCalls: number;
  runCalls: number;
}

function count(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

/** Decode the JSON reply of the record or snapshot script. */
export function decodeSession(json: string): DecodedSession {
  const reply = JSON.parse(json) as ScriptReply;
  const outcomes = reply.outcomes ?? {};
  const entries = Array.isArray(reply.window) ? reply.window : [];
  const window = entries.map((entry) => {
    const call = JSON.parse(entry) as CallRecord;
    const outcome = outcomes[String(call.step)];
    if (outcome !== undefined) call.outcome = JSON.parse(outcome) as ToolOutcome;
    return call;
  });
  const run = reply.run || "";
  const circuit: CircuitRecord = reply.circuit
    ? (JSON.parse(reply.circuit) as CircuitRecord)
    : { ...freshCircuit(run), asOf: count(reply.asOf) };
  const totalCalls = count(reply.total);
  return {
    sessionId: reply.sid ? (JSON.parse(reply.sid) as string) : "",
    now: count(reply.now),
    duplicate: reply.duplicate === true,
    window,
    circuit,
    usage: { inputTokens: count(reply.inTok), outputTokens: count(reply.outTok), costMicros: count(reply.cost) },
    totalCalls,
    runCalls: totalCalls - count(reply.runStart) + 1,
  };
}
