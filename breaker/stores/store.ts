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
export type NewCall = Omit<CallRecord, "step" | "at" | "outcome"> & {
  /** Spend of the model turn behind this call, added to the session totals once. */
  usage?: UsageTotals;
};

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

/** Something a store did on its own that its users should hear about. */
export interface StoreEvent {
  /** `fallback`: the backend failed and the store served the operation from memory instead. */
  type: "fallback";
  /** The store method that failed over (record, complete, transition, snapshot, reset, sessions). */
  operation: string;
  /** Absent for operations that span sessions. */
  sessionId?: string;
  error: Error;
}

/**
 * Where the breaker keeps sessions. `record` is the hot path and must be one
 * atomic step (one round trip for a remote store): concurrent checks of one
 * session get one linear history, so a limit of N admits exactly N.
 */
export interface BreakerStore {
  /**
   * Atomically: if `call.id` is already in the window, return it unchanged;
   * otherwise start a new run if `call.run` differs from the circuit's run
   * (loop state back to CLOSED, spend kept), append the call, add its usage,
   * trim the window and refresh the TTL.
   */
  record(sessionId: string, call: NewCall, limits: StoreLimits): Promise<RecordResult>;
  /** Attach an outcome to a recorded call; false when the call is unknown. */
  complete(
    sessionId: string,
    callId: string,
    outcome: ToolOutcome,
    limits: StoreLimits,
  ): Promise<boolean>;
  /**
   * Persist a circuit transition decided at step `circuit.asOf`. Ignored when
   * the stored circuit was set by a later step or belongs to another run, so
   * out-of-order writes from concurrent workers never roll the state back.
   */
  transition(sessionId: string, circuit: CircuitRecord, limits: StoreLimits): Promise<void>;
  /** The whole session, or null when it is unknown or expired. */
  snapshot(sessionId: string): Promise<SessionSnapshot | null>;
  /** Forget a session entirely. */
  reset(sessionId: string): Promise<void>;
  /** Ids of the sessions the store currently holds. */
  sessions(): Promise<string[]>;
  /** Release connections or timers. */
  close?(): Promise<void>;
  /** Listen to store events (a breaker forwards them as `storeError`); returns an unsubscribe function. */
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
