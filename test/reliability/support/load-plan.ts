import type { PolicyInput } from "../../../breaker/index.js";

/** What every load worker is told. */
export interface LoadConfig {
  url: string;
  prefix: string;
  worker: number;
  workers: number;
  sessions: number;
  callsPerSession: number;
  commandTimeoutMs: number;
}

/** What a worker reports: the calls it got admitted, by session, and everything that went wrong. */
export interface WorkerReport {
  worker: number;
  admitted: Record<string, string[]>;
  refused: number;
  /** Verdicts refused because Redis could not answer: must stay 0. */
  unavailable: number;
  errors: string[];
  checks: number;
  maxCheckMs: number;
  elapsedMs: number;
}

/** Even sessions make distinct calls (the run budget binds); odd ones repeat one call (the loop detectors bind). */
export type SessionKind = "distinct" | "identical";

/** The kind of session number `s`. */
export function sessionKind(s: number): SessionKind {
  return s % 2 === 0 ? "distinct" : "identical";
}

/** Seconds an OPEN circuit lasts in the load test (longer than the load phase takes on a busy shared machine), and seconds an idle session's keys live. */
export const LOAD_OPEN_SECONDS = 40;
export const LOAD_TTL_SECONDS = 45;

const OFF = { warn: 50, block: 50 };
const common = { windowSize: 50, openSeconds: LOAD_OPEN_SECONDS, ttlSeconds: LOAD_TTL_SECONDS };

/**
 * One binding limit per kind, every other detector out of reach, so the
 * number of calls each session may have admitted is known exactly.
 */
export const LOAD_POLICIES: Record<SessionKind, PolicyInput> = {
  // Calls 1..9 run; the 10th call of the run opens the circuit.
  distinct: {
    ...common,
    detectors: { run_calls: { warn: 9, block: 10 }, identical_repeat: OFF, semantic_stutter: OFF, no_progress: OFF, cycle: OFF, error_flood: OFF, call_rate: OFF },
  },
  // Calls 1..3 run; the 4th identical call opens the circuit (no_progress, at its defaults, agrees).
  identical: {
    ...common,
    detectors: { identical_repeat: { warn: 3, block: 4 }, semantic_stutter: OFF, cycle: OFF, error_flood: OFF, call_rate: OFF, run_calls: OFF },
  },
};

/** Calls each kind of session may have admitted under its policy. */
export const ALLOWED_CALLS: Record<SessionKind, number> = { distinct: 9, identical: 3 };

/** Arguments of call `i` of a session. */
export function loadCallArgs(kind: SessionKind, i: number): Record<string, unknown> {
  return kind === "distinct" ? { account: `acc-${i}` } : { account: "acc-same" };
}

/** Output of call `i` of a session: new data for distinct calls, the same answer for repeats. */
export function loadOutput(kind: SessionKind, i: number): unknown {
  return kind === "distinct" ? { account: `acc-${i}`, balance: i } : { account: "acc-same", balance: 0 };
}
