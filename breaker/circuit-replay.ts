// The circuit as a sequential replay of the session's calls in store order.
// The store records calls atomically but cannot run the detectors; a check's
// verdict depends on the verdicts of the calls before it (an OPEN refuses
// everything after it). So the breaker that checks step k starts from the
// circuit the store holds (valid through step `decided`) and replays, with
// the same pure decide(), every step in between, each with the window, the
// outcomes, the spend and the clock that step itself saw. Every process
// replays the same history, so every process reaches the same verdicts.
import { decide, type Decision } from "./decide.js";
import type { Policy } from "./policy.js";
import type { BatchRecord } from "./stores/store.js";
import type { CallRecord, CircuitRecord, UsageTotals } from "./types.js";

/** Where a replay starts: a circuit that holds every verdict through step `through`. */
export interface ReplayStart {
  circuit: CircuitRecord;
  through: number;
}

/** What a replay found. */
export interface Replay {
  /** The decision at every replayed step. */
  decisions: Map<number, Decision>;
  /** Steps at which the circuit changed, with the circuit after them. */
  transitions: Map<number, CircuitRecord>;
  /** The circuit after the last replayed step. */
  circuit: CircuitRecord;
  /** The last replayed step (the start's when nothing was replayed). */
  through: number;
}

/** The circuit that answers a call at time `now`: an expired OPEN gives the loop detectors a clean slate from `step`. */
export function liveCircuit(circuit: CircuitRecord, step: number, now: number): { circuit: CircuitRecord; expired: boolean } {
  if (circuit.state === "OPEN" && circuit.openUntil <= now) {
    return { circuit: { ...circuit, state: "CLOSED", openUntil: 0, since: step - 1, findings: [] }, expired: true };
  }
  return { circuit, expired: false };
}

/**
 * The window step `step` was checked with: the calls up to it, and of their
 * outcomes only those applied before it was recorded.
 */
export function windowAt(history: BatchRecord, step: number, windowSize: number, lateUntil: number): CallRecord[] {
  const first = history.calls[0]?.step ?? 1;
  const end = step - first + 1;
  const window = history.calls.slice(Math.max(0, end - windowSize), end);
  // Outcomes applied at or after this step were not there when it was checked.
  if (step <= lateUntil) {
    const firstInWindow = window[0]?.step ?? step;
    const asOf = new Map<number, CallRecord["outcome"]>();
    const late = new Set<number>();
    for (const report of history.reports) {
      if (report.step < firstInWindow || report.step > step) continue;
      if (report.seq < step) asOf.set(report.step, report.outcome);
      else late.add(report.step);
    }
    for (let i = 0; i < window.length; i++) {
      const call = window[i]!;
      if (!late.has(call.step)) continue;
      const { outcome: _latest, ...rest } = call;
      const earlier = asOf.get(call.step);
      window[i] = earlier ? { ...rest, outcome: earlier } : rest;
    }
  }
  return window;
}

// Session spend as of each step from `from` to the last call: the totals minus what later calls added.
function usageFrom(history: BatchRecord, from: number): UsageTotals[] {
  const first = history.calls[0]?.step ?? 1;
  const out: UsageTotals[] = [];
  let { inputTokens, outputTokens, costMicros } = history.usage;
  for (let step = history.totalCalls; step >= from; step--) {
    out[step - from] = { inputTokens, outputTokens, costMicros };
    const usage = history.calls[step - first]?.usage;
    if (usage) {
      inputTokens -= usage.inputTokens;
      outputTokens -= usage.outputTokens;
      costMicros -= usage.costMicros;
    }
  }
  return out;
}

/**
 * Replay steps `start.through + 1` to `upTo` (all in the current run, all in
 * `history.calls`): each is refused while the circuit is OPEN, otherwise
 * decided by decide() on what that step saw; a decision that changes the
 * state is a transition, exactly as a single check makes it.
 */
export function replayCircuit(history: BatchRecord, start: ReplayStart, upTo: number, policy: Policy): Replay {
  const decisions = new Map<number, Decision>();
  const transitions = new Map<number, CircuitRecord>();
  const from = start.through + 1;
  if (upTo < from) return { decisions, transitions, circuit: start.circuit, through: start.through };
  const first = history.calls[0]?.step ?? 1;
  // Steps up to the latest report's seq were checked before it: their windows need filtering.
  let lateUntil = 0;
  for (const report of history.reports) if (report.seq > lateUntil) lateUntil = report.seq;
  const usage = usageFrom(history, from);
  let circuit = start.circuit;
  for (let step = from; step <= upTo; step++) {
    const call = history.calls[step - first]!;
    if (circuit.state === "OPEN" && circuit.openUntil > call.at) {
      decisions.set(step, { state: "OPEN", findings: circuit.findings });
      continue;
    }
    const live = liveCircuit(circuit, step, call.at);
    const decision = decide({
      window: windowAt(history, step, policy.windowSize, lateUntil),
      circuit: live.circuit,
      usage: usage[step - from]!,
      runCalls: step - history.runStart + 1,
      now: call.at,
      policy,
    });
    decisions.set(step, decision);
    if (decision.state !== live.circuit.state || live.expired) {
      circuit = {
        ...live.circuit,
        state: decision.state,
        openUntil: decision.state === "OPEN" ? call.at + policy.openSeconds * 1_000 : 0,
        findings: decision.findings,
        asOf: step,
      };
      transitions.set(step, circuit);
    } else {
      circuit = live.circuit;
    }
  }
  return { decisions, transitions, circuit, through: upTo };
}
