import type { RawOutcome } from "../outcome.js";
import type { TokenUsage, ToolNature } from "../types.js";

/** One tool call as the replay sees it. */
export interface ReplayCall {
  /** The call id the trajectory gave (results refer to it), if any. */
  id?: string;
  name: string;
  /** Parsed arguments; the raw text when they were not valid JSON. */
  args: unknown;
}

/** What happens in a trajectory, in order: a user turn, a model turn asking for calls, or a tool result. */
export type ReplayEvent =
  | { type: "user"; at?: number; /** What the user said, when known: a bare "continue" does not start a new run. */ text?: string }
  | { type: "model"; calls: ReplayCall[]; usage?: TokenUsage; at?: number }
  | { type: "result"; callId?: string; outcome: RawOutcome; at?: number };

/** A trajectory reduced to what the breaker needs, whatever format it came in. */
export interface ReplayTrajectory {
  id?: string;
  events: ReplayEvent[];
  /** Natures the trajectory declares for its tools (`"natures": {"send_email": "side_effecting"}`). */
  natures: Record<string, ToolNature>;
}
