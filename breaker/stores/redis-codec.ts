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

/** The window a client holds for a session, so the record script can send only what is new. */
export interface CachedWindow {
  epoch: string;
  /** Entries without outcomes (outcomes change; entries never do), oldest first. */
  entries: CallRecord[];
  /** Step of the newest entry held. */
  last: number;
}

/** A script reply decoded into the store's types. */
export interface DecodedSession {
  now: number;
  duplicate: boolean;
  window: CallRecord[];
  circuit: CircuitRecord;
  usage: UsageTotals;
  totalCalls: number;
  runCalls: number;
  /** The whole window as of this reply, for the client's cache (absent for a repeated id). */
  cacheable?: CachedWindow;
}

/** One element of a script's RESP array: bulk string, integer, or nil. */
type ReplyItem = string | number | null;

// Positions in the reply array; the layout is documented in redis-scripts.ts.
const NOW = 0, DUPLICATE = 1, CIRCUIT = 2, RUN = 3, AS_OF = 4, TOTAL = 5, RUN_START = 6, IN_TOK = 7, OUT_TOK = 8, COST = 9;
const EPOCH = 10, FIRST = 11, DELTA = 12, COUNT = 13, HEADER = 14;

function count(value: ReplyItem | undefined): number {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

/**
 * Decode the array the record and snapshot scripts reply with; only entries,
 * outcomes and the circuit are JSON. A delta reply is completed from
 * `cached`, the window this client held when it asked.
 */
export function decodeSession(reply: unknown, cached?: CachedWindow): DecodedSession {
  if (!Array.isArray(reply) || reply.length < HEADER) throw new Error("unexpected reply from a breaker script");
  const items = reply as ReplyItem[];
  const end = HEADER + count(items[COUNT]);
  const first = count(items[FIRST]);
  const outcomes = new Map<number, string>();
  for (let i = end; i + 1 < items.length; i += 2) outcomes.set(Number(items[i]), items[i + 1] as string);
  const fresh: CallRecord[] = [];
  for (let i = HEADER; i < end; i++) fresh.push(JSON.parse(items[i] as string) as CallRecord);
  if (items[DELTA] === 1 && !cached) throw new Error("a delta reply needs the window the client held");
  const held = items[DELTA] === 1 ? cached!.entries.filter((c) => c.step >= first) : [];
  const entries = [...held, ...fresh.filter((c) => c.step >= first)];
  // Fresh objects every time: callers may keep or change what they get.
  const window = entries.map((call) => {
    const outcome = outcomes.get(call.step);
    return outcome === undefined ? { ...call } : { ...call, outcome: JSON.parse(outcome) as ToolOutcome };
  });
  const circuitJson = items[CIRCUIT];
  const circuit: CircuitRecord = circuitJson
    ? (JSON.parse(circuitJson as string) as CircuitRecord)
    : { ...freshCircuit(String(items[RUN] || "")), asOf: count(items[AS_OF]) };
  const totalCalls = count(items[TOTAL]);
  const duplicate = items[DUPLICATE] === 1;
  const epoch = items[EPOCH];
  return {
    now: count(items[NOW]),
    duplicate,
    window,
    circuit,
    usage: { inputTokens: count(items[IN_TOK]), outputTokens: count(items[OUT_TOK]), costMicros: count(items[COST]) },
    totalCalls,
    runCalls: totalCalls - count(items[RUN_START]) + 1,
    ...(duplicate || typeof epoch !== "string" ? {} : { cacheable: { epoch, entries, last: totalCalls } }),
  };
}
