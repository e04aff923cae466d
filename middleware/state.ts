import { z } from "zod";
import type { Verdict } from "../breaker/index.js";

/**
 * What the middleware keeps in the agent's state, checkpointed with the
 * thread: a run resumed elsewhere finds the verdicts it routes on, and
 * Studio shows why a run stopped (like the graph's `verdicts` and `halted`).
 */
export const LoopBreakerStateSchema = z.object({
  /** The breaker session of this thread (the thread id unless the options choose another). */
  breakerSessionId: z.string().default(""),
  /** The verdicts on the latest model message's tool calls, in order. */
  breakerVerdicts: z.array(z.custom<Verdict>()).default([]),
  /** True once the circuit refused a model message in the current run. */
  breakerTripped: z.boolean().default(false),
});

/** The middleware's slice of the agent state. */
export type LoopBreakerState = z.infer<typeof LoopBreakerStateSchema>;
