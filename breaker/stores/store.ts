import type {
  CallRecord,
  CircuitRecord,
  SessionSnapshot,
  ToolOutcome,
  UsageTotals,
} from "../types.js";

/** Per-session bounds the breaker passes with every store call. */
export interface StoreLimits {
  /** Most window entries kept per session; older ones are dropped. */
  maxEntries: number;
  /** Idle seconds after which a session's data expires. */
  ttlSeconds: number;
}

/** A call as the breaker hands it to the store; the store stamps `step` and `at`. */
export type NewCall = Omit<CallRecord, "step" | "at" | "outcome">;

/** What one atomic `record` returns: enough to decide without another round trip. */
export interface RecordResult {
  /** The store's clock (epoch ms) at the time of the record. */
  now: number;
  /** The recorded call (for a repeated id, the original record). */
  record: CallRecord;
  /** The session window up to and including `record`, oldest first. */
  window: CallRecord[];
  /** True when this call id had been recorded before: nothing was added. */
  duplicate: boolean;
  /** The circuit after any run rollover the record caused. */
  circuit: CircuitRecord;
  usage: UsageTotals;
  totalCalls: number;
  runCalls: number;
}

/**
 * An outcome as the store applied it. `seq` is the session's call count at
 * that moment: the calls up to step `seq` were checked without it, later
 * ones with it. A replay needs that to see each window as it was.
 */
export interface OutcomeReport {
  step: number;
  seq: number;
  outcome: ToolOutcome;
}

/**
 * A breaker's word that the stored circuit already holds every verdict
 * through step `through` (no verdict after the circuit was written changed
 * it). The store moves its `decided` mark there only if the circuit it holds
 * is still the one the claim names (same epoch, run and asOf).
 */
export interface CircuitClaim {
  epoch: string;
  run: string;
  asOf: number;
  through: number;
}

/** Where a transition stands: the session epoch it was decided in and the last step it covers. */
export interface TransitionPosition {
  epoch: string;
  through: number;
}

/**
 * What one atomic `recordBatch` returns: the session's recent history, enough
 * for the breaker to decide every call of the batch and to replay any
 * verdict the stored circuit does not hold yet, with no second round trip.
 */
export interface BatchRecord {
  /** The store's clock (epoch ms) at the time of the record; every call of the batch has `at` = now. */
  now: number;
  /** Changes whenever the session starts anew (reset, expiry): claims from another epoch are void. */
  epoch: string;
  /** Per call of the batch, in order: its step, and whether its id had been recorded before. */
  steps: { step: number; duplicate: boolean }[];
  /**
   * Recent calls, oldest first, with consecutive steps ending at `totalCalls`,
   * each carrying its latest outcome. Starts early enough that every step
   * after `decided` has its whole window here. Shared objects: read only.
   */
  calls: readonly CallRecord[];
  /** The outcomes applied to those calls, in the order the store applied them. */
  reports: readonly OutcomeReport[];
  /** The stored circuit (after any run rollover the batch caused). */
  circuit: CircuitRecord;
  /** The stored circuit holds every verdict through this step. */
  decided: number;
  /** Session totals after the batch. */
  usage: UsageTotals;
  totalCalls: number;
  /** First step of the current run. */
  runStart: number;
  /** Set when a fail mode answered (Redis down, served from process memory): why. */
  degraded?: { reason: string };
}

/** One outcome to attach, for `completeBatch`. */
export interface Completion {
  callId: string;
  outcome: ToolOutcome;
}

/** Something a store did on its own that its users should hear about. */
export type StoreEvent =
  | {
      /** The backend failed and the store served this operation by its fail mode (from memory). */
      type: "fallback";
      /** The store method that failed over (record, complete, transition, snapshot, reset, sessions). */
      operation: string;
      /** Absent for operations that span sessions. */
      sessionId?: string;
      error: Error;
    }
  | {
      /** The first failure after a healthy spell: one event per outage, whatever the number of calls. */
      type: "outage";
      operation: string;
      sessionId?: string;
      error: Error;
      /** What calls get until it ends: answers from process memory (`open`) or refusals (`closed`). */
      failMode: "open" | "closed";
    }
  | {
      /** The first success after an outage. */
      type: "recovered";
      operation: string;
      /** How long the outage lasted, from its first failure to this success. */
      downMs: number;
      /** Operations answered by the fail mode during the outage. */
      failedOperations: number;
    };

/**
 * Where the breaker keeps sessions. `recordBatch` is the hot path and must be
 * one atomic step (one round trip for a remote store): concurrent checks of
 * one session get one linear history, so a limit of N admits exactly N.
 */
export interface BreakerStore {
  /**
   * Atomically, for each call in order: if `call.id` is in the window, leave it;
   * otherwise start a new run if `call.run` differs from the circuit's run
   * (loop state back to CLOSED, spend kept), append the call, add its usage.
   * Then trim and refresh the TTL. A valid `claim` moves the decided mark first.
   */
  recordBatch(sessionId: string, calls: readonly NewCall[], limits: StoreLimits, claim?: CircuitClaim): Promise<BatchRecord>;
  /** `recordBatch` of one call, answered in the shape of a single check (copies, safe to change). */
  record(sessionId: string, call: NewCall, limits: StoreLimits): Promise<RecordResult>;
  /**
   * Attach outcomes to recorded calls in the window, atomically; for each,
   * false when the call is unknown. A valid `claim` moves the decided mark.
   */
  completeBatch(sessionId: string, completions: readonly Completion[], limits: StoreLimits, claim?: CircuitClaim): Promise<boolean[]>;
  /** Attach an outcome to a recorded call; false when the call is unknown. */
  complete(sessionId: string, callId: string, outcome: ToolOutcome, limits: StoreLimits): Promise<boolean>;
  /**
   * Persist a circuit that holds every verdict through `position.through`
   * (default: `circuit.asOf`). Ignored when the stored circuit belongs to
   * another run or epoch, or covers a later step, so out-of-order writes from
   * concurrent workers never roll the state back.
   */
  transition(sessionId: string, circuit: CircuitRecord, limits: StoreLimits, position?: TransitionPosition): Promise<void>;
  /** The whole session, or null when it is unknown or expired. */
  snapshot(sessionId: string): Promise<SessionSnapshot | null>;
  /** Forget a session entirely. */
  reset(sessionId: string): Promise<void>;
  /** Ids of the sessions the store currently holds. */
  sessions(): Promise<string[]>;
  /** Release connections or timers. */
  close?(): Promise<void>;
  /** Listen to store events (a breaker forwards them); returns an unsubscribe function. */
  subscribe?(listener: (event: StoreEvent) => void): () => void;
}

/** The circuit of a session nobody has seen yet. */
export function freshCircuit(run: string): CircuitRecord {
  return { state: "CLOSED", openUntil: 0, run, since: 0, findings: [], asOf: 0 };
}

/** Zero spend. */
export function noUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, costMicros: 0 };
}

/** Most outcome reports a session keeps: two per call of the window (a call reported twice, a window being replayed). */
export function reportCap(maxEntries: number): number {
  return 2 * maxEntries;
}

/** Entries a session must keep beyond the window: back to the first one any undecided step's window needs, at most twice the window. */
export function keepFrom(totalCalls: number, decided: number, maxEntries: number): number {
  return Math.max(totalCalls - 2 * maxEntries + 1, Math.min(totalCalls - maxEntries + 1, decided - maxEntries + 2));
}

/** The window size a store was given, as a whole number of at least 1. */
export function windowSizeOf(limits: StoreLimits): number {
  return Math.max(1, Math.floor(limits.maxEntries));
}

/** A batch of one answered as a single `record`: the visible window up to the call, as copies. */
export function recordResultOf(batch: BatchRecord, limits: StoreLimits): RecordResult {
  const { step, duplicate } = batch.steps[0]!;
  const first = batch.calls[0]?.step ?? 1;
  const visibleFrom = Math.max(first, batch.totalCalls - windowSizeOf(limits) + 1);
  const window = batch.calls.slice(visibleFrom - first, step - first + 1).map((c) => copyCall(c));
  return {
    now: batch.now,
    record: window.at(-1)!,
    window,
    duplicate,
    circuit: { ...batch.circuit, findings: [...batch.circuit.findings] },
    usage: { ...batch.usage },
    totalCalls: batch.totalCalls,
    runCalls: batch.totalCalls - batch.runStart + 1,
  };
}

/** A call record its receiver may change without touching the store's. */
export function copyCall(call: CallRecord): CallRecord {
  const copy: CallRecord = { ...call };
  if (call.outcome) copy.outcome = { ...call.outcome };
  if (call.usage) copy.usage = { ...call.usage };
  return copy;
}
