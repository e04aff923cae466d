import { decisiveFinding, type Verdict } from "../breaker/index.js";
import type { PendingCall } from "./tool-calls.js";

/** The error code a refused call's ToolMessage carries. */
export const TRIPPED = "CIRCUIT_BREAKER_TRIPPED";

/** What a refused call's reply tells the model to do when the run ends with the trip. */
export const STOP_CALLING = "Do not call tools again in this turn. Answer with what you already have.";

/**
 * The JSON a refused call is answered with. `trip` is the verdict that opened
 * the circuit; a call refused only because it shared a turn with it says so.
 * `next` tells the model what to do now.
 */
export function circuitFrame(call: PendingCall, own: Verdict, trip: Verdict, next = STOP_CALLING): string {
  const finding = decisiveFinding(trip);
  const collateral = own.allowed;
  return JSON.stringify({
    error: TRIPPED,
    circuit_state: "OPEN",
    tool: call.name,
    tool_call_id: call.id,
    ran: false,
    detector: finding?.detector ?? "unknown",
    reason: collateral
      ? `Not run: the circuit opened on ${trip.tool} (step ${trip.step}) in the same turn.`
      : (finding?.message ?? "The circuit breaker is open."),
    steps: finding?.steps ?? [],
    next,
  });
}
