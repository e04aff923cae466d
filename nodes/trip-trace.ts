import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { decisiveFinding, type Verdict } from "../breaker/index.js";

/** The tag a tripped run's trace carries (LangSmith: `has(tags, "circuit_open")`, as a trace or tree filter). */
export const TRIP_TAG = "circuit_open";

/** What the run did with the trip: ended it, asked a person (onTrip "ask"), gave the model one more turn, or threw. */
export type TripAction = "end" | "ask" | "continue" | "error";

/** The metadata of a trip's trace run, every value a string or a number so LangSmith's metadata filters match it. */
export interface TripMetadata {
  circuit_detector: string;
  circuit_tool: string;
  /** The step of the refused call that opened the circuit. */
  circuit_step: number;
  /** The evidence steps of the deciding finding, comma-separated. */
  circuit_steps: string;
  /** "run" (a loop) or "session" (a budget). */
  circuit_scope: string;
  circuit_session: string;
  circuit_action: TripAction;
}

/** What a trace should say about a trip. */
export function tripMetadata(sessionId: string, trip: Verdict, action: TripAction): TripMetadata {
  const finding = decisiveFinding(trip);
  return {
    circuit_detector: finding?.detector ?? "circuit_breaker",
    circuit_tool: trip.tool,
    circuit_step: trip.step,
    circuit_steps: (finding?.steps ?? [trip.step]).join(","),
    circuit_scope: finding?.scope ?? "run",
    circuit_session: sessionId,
    circuit_action: action,
  };
}

/**
 * Put the trip in the run's trace: a small child run named and tagged
 * `circuit_open`, with the detector, steps and session as metadata and the
 * findings as its output, so tripped runs can be filtered in LangSmith.
 * Costs nothing noticeable without tracing, and runs only on a trip. Without
 * `config`, the child attaches to the runnable it is called in (LangChain
 * keeps the current config in async local storage).
 */
export async function traceTrip(sessionId: string, trip: Verdict, action: TripAction, config?: RunnableConfig): Promise<void> {
  const metadata = tripMetadata(sessionId, trip, action);
  const summary = RunnableLambda.from((input: TripMetadata) => ({ ...input, findings: trip.findings.map((f) => f.message) }));
  await summary.withConfig({ runName: TRIP_TAG, tags: [TRIP_TAG], metadata: { ...metadata } }).invoke(metadata, config);
}
