import type { CallRecord, CircuitRecord, ToolOutcome, UsageTotals } from "../types.js";
import { freshCircuit, type NewCall, type OutcomeReport } from "./store.js";

/** A call split the way the record script needs it: the id prefix it searches by, and the rest. */
export interface EncodedCall {
  /** `{"id":<json id>,`: the exact start of this call's window entry. */
  idPrefix: string;
  /** The entry after `step` and `at`: `"tool":...,"run":...,"usage":...}`. */
  body: string;
  run: string;
  /** Usage as integer strings, "0" when absent. */
  usage: [string, string, string];
}

/** The start of the window entry of a call id. */
export function idPrefix(callId: string): string {
  return `{"id":${JSON.stringify(callId)},`;
}

// HINCRBY only takes integers that fit in 64 bits; usage is whole already.
function integer(value: number): number {
  const n = Math.round(value);
  return n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0;
}

function storedUsage(usage: UsageTotals): UsageTotals {
  return { inputTokens: integer(usage.inputTokens), outputTokens: integer(usage.outputTokens), costMicros: integer(usage.costMicros) };
}

/** Encode a new call for the record script; its usage goes into the entry too, as the integers the script adds. */
export function encodeCall(call: NewCall): EncodedCall {
  const { tool, args, argsHash, run } = call;
  const usage = call.usage ? storedUsage(call.usage) : undefined;
  return {
    idPrefix: idPrefix(call.id),
    body: JSON.stringify({ tool, args, argsHash, run, usage }).slice(1),
    run: String(run),
    usage: usage ? [String(usage.inputTokens), String(usage.outputTokens), String(usage.costMicros)] : ["0", "0", "0"],
  };
}

/** An outcome as the complete script logs it: its JSON, every field kept (the script prefixes "step,seq,"). */
export function encodeOutcome(outcome: ToolOutcome): string {
  return JSON.stringify(outcome);
}

/** The window entry the record script writes for a call, as JSON.parse would read it back. */
export function recordOf(call: NewCall, step: number, at: number): CallRecord {
  const record: CallRecord = { id: call.id, step, at, tool: call.tool, args: call.args, argsHash: call.argsHash, run: call.run };
  if (call.usage) record.usage = storedUsage(call.usage);
  return record;
}

function decodeReport(text: string): OutcomeReport {
  const a = text.indexOf(",");
  const b = text.indexOf(",", a + 1);
  return { step: Number(text.slice(0, a)), seq: Number(text.slice(a + 1, b)), outcome: JSON.parse(text.slice(b + 1)) as ToolOutcome };
}

/**
 * What a RedisStore holds of a session between calls: the list's calls (with
 * their latest outcomes) and the outcome reports, so the scripts send only
 * what is new. Never changed once built: every reply builds a new one.
 */
export interface HeldSession {
  epoch: string;
  /** Calls with consecutive steps from calls[0].step to `last`. */
  calls: CallRecord[];
  last: number;
  reports: OutcomeReport[];
  /** Reports the session has logged up to which `reports` is complete. */
  done: number;
}

/** A record or snapshot reply decoded, completed from what the client held. */
export interface DecodedSession {
  now: number;
  epoch: string;
  circuit: CircuitRecord;
  decided: number;
  usage: UsageTotals;
  totalCalls: number;
  runStart: number;
  /** The window size the session was last recorded with. */
  windowSize: number;
  /** Calls from the oldest the client holds or was sent through `totalCalls`, with their latest outcomes. */
  calls: CallRecord[];
  reports: OutcomeReport[];
  /** For a record: each call's step and whether its id had been recorded before. */
  steps: { step: number; duplicate: boolean }[];
  /** What to hold for the next call: trimmed to what the server keeps. */
  held: HeldSession;
}

/** One element of a script's RESP array: bulk string, integer, or nil. */
type ReplyItem = string | number | null;

// Positions in the reply array; the layout is documented in redis-scripts.ts.
const NOW = 0, EPOCH = 1, CIRCUIT = 2, RUN = 3, AS_OF = 4, TOTAL = 5, RUN_START = 6, DECIDED = 7;
const IN_TOK = 8, OUT_TOK = 9, COST = 10, MAX = 11, FIRST = 12, FROM = 13, COUNT = 14, HEADER = 15;

function count(value: ReplyItem | undefined): number {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

/** Attach each report's outcome to its call from step `from` on (later reports win); new objects only where an outcome changes. */
function withOutcomes(calls: CallRecord[], reports: readonly OutcomeReport[], from = 0): void {
  const first = calls[0]?.step ?? 1;
  for (const report of reports) {
    if (report.step < from) continue;
    const i = report.step - first;
    const call = calls[i];
    if (call) calls[i] = { ...call, outcome: report.outcome };
  }
}

/** Merge reports numbered from+1.. into what was held (complete up to held.done); null when they do not follow on. */
export function mergeReports(held: HeldSession, from: number, reports: readonly OutcomeReport[], done: number): HeldSession | null {
  if (from > held.done || done < held.done) return null;
  const fresh = reports.slice(held.done - from);
  if (fresh.length === 0) return held;
  const calls = held.calls.slice();
  withOutcomes(calls, fresh);
  return { ...held, calls, reports: [...held.reports, ...fresh], done };
}

/** The reports part of a reply, from `at`: reportsFrom, m, then m reports. */
export function decodeReports(items: readonly ReplyItem[], at: number): { from: number; reports: OutcomeReport[]; end: number } {
  const from = count(items[at]);
  const m = count(items[at + 1]);
  const reports: OutcomeReport[] = [];
  for (let i = at + 2; i < at + 2 + m; i++) reports.push(decodeReport(items[i] as string));
  return { from, reports, end: at + 2 + m };
}

/**
 * Decode the array the record and snapshot scripts reply with; only entries
 * and the circuit are JSON. Entries and reports sent as a delta are completed
 * from `held`, what this client held when it asked; a record's own new
 * entries, which the script does not send back, are built from `batch`.
 */
export function decodeSession(reply: unknown, held?: HeldSession, batch: readonly NewCall[] = []): DecodedSession {
  if (!Array.isArray(reply) || reply.length < HEADER) throw new Error("unexpected reply from a breaker script");
  const items = reply as ReplyItem[];
  const now = count(items[NOW]);
  const epoch = String(items[EPOCH]);
  const from = count(items[FROM]);
  const end = HEADER + count(items[COUNT]);
  const totalCalls = count(items[TOTAL]);
  const same = held !== undefined && held.epoch === epoch;
  const base = same && from === held.last + 1 ? held.calls : [];
  const calls = base.slice();
  for (let i = HEADER; i < end; i++) calls.push(JSON.parse(items[i] as string) as CallRecord);

  const done = count(items[end]);
  const sent = decodeReports(items, end + 1);
  let reports: OutcomeReport[];
  if (same && sent.from === held.done) {
    reports = sent.reports.length === 0 ? held.reports : [...held.reports, ...sent.reports];
    // Held calls carry the held reports already; entries sent afresh get them too, then all get the new ones.
    if (base.length === 0) withOutcomes(calls, held.reports);
    else if (end > HEADER) withOutcomes(calls, held.reports, held.last + 1);
    withOutcomes(calls, sent.reports);
  } else {
    reports = sent.reports;
    withOutcomes(calls, reports);
  }

  const steps: DecodedSession["steps"] = [];
  for (let i = 0; i < batch.length; i++) {
    const value = count(items[sent.end + i]);
    const step = Math.abs(value);
    steps.push({ step, duplicate: value < 0 });
    if (value > 0) calls.push(recordOf(batch[i]!, step, now));
  }
  if (calls.length > 0 && calls[calls.length - 1]!.step !== totalCalls) {
    throw new Error("a breaker script replied with a window that does not end at the session's last call");
  }

  const circuitJson = items[CIRCUIT];
  const circuit: CircuitRecord = circuitJson
    ? (JSON.parse(circuitJson as string) as CircuitRecord)
    : { ...freshCircuit(String(items[RUN] || "")), asOf: count(items[AS_OF]) };
  const first = count(items[FIRST]);
  const keptCalls = calls[0] && calls[0].step < first ? calls.slice(first - calls[0].step) : calls;
  return {
    now,
    epoch,
    circuit,
    decided: count(items[DECIDED]),
    usage: { inputTokens: count(items[IN_TOK]), outputTokens: count(items[OUT_TOK]), costMicros: count(items[COST]) },
    totalCalls,
    runStart: count(items[RUN_START]),
    windowSize: count(items[MAX]),
    calls,
    reports,
    steps,
    held: {
      epoch,
      calls: keptCalls,
      last: totalCalls,
      // Reports of calls no longer held are dropped once they outnumber the calls (not on every trim).
      reports: reports.length > 2 * keptCalls.length ? reports.filter((r) => r.step >= first) : reports,
      done,
    },
  };
}
