import { decisiveFinding, type Finding, type Verdict } from "../breaker/index.js";
import type { Redactor } from "./redact.js";
import { REVIEW_ANSWERS, type RefusedDecision } from "./review-decision.js";
import type { PendingCall } from "./tool-calls.js";

/**
 * The value of the interrupt a trip raises with `onTrip: "ask"`: what
 * tripped, why, on which steps, and the calls that wait for the decision.
 */
export interface CircuitOpenRequest {
  type: "circuit_open";
  /** The breaker session the calls were counted in. */
  sessionId: string;
  /** The refused call that opened the circuit, and the detector that decided it. */
  tripped: { tool: string; step: number; detector: string };
  /** Every finding of that call's verdict: detector, scope, severity, a sentence, the evidence steps. */
  findings: Finding[];
  /** The calls of the model's message, none of which ran; arguments masked like every output. */
  pendingCalls: { id: string; name: string; args: unknown }[];
  /** How to answer. */
  resume: string;
  /** Set when the previous resume value was refused: why, and what is accepted. */
  error?: RefusedDecision;
}

/** The interrupt value for a refused batch; verdicts come from the state, already redacted. */
export function circuitOpenRequest(
  sessionId: string,
  calls: readonly PendingCall[],
  verdicts: readonly Verdict[],
  redact: Redactor,
): CircuitOpenRequest {
  const trip = verdicts.find((v) => !v.allowed) ?? verdicts[0]!;
  return {
    type: "circuit_open",
    sessionId,
    tripped: { tool: trip.tool, step: trip.step, detector: decisiveFinding(trip)?.detector ?? "circuit_breaker" },
    findings: trip.findings,
    pendingCalls: calls.map((call) => ({ id: call.id, name: call.name, args: redact.value(call.args) })),
    resume: `Resume with ${REVIEW_ANSWERS}.`,
  };
}
