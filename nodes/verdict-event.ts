import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Verdict } from "../breaker/index.js";

/** What the `custom` stream mode carries after every breaker decision. */
export interface VerdictEvent {
  type: "breaker_verdict";
  sessionId: string;
  verdicts: Verdict[];
  /** Set by circuit_fallback: the run ends here. */
  halted?: true;
  /** Set when a fail mode answered (the store was down): the verdicts are not the shared store's. */
  degraded?: { reason: string };
}

/** The event for a breaker decision; the graph and the createAgent middleware write the same one, so a UI reads either. */
export function verdictEvent(sessionId: string, verdicts: Verdict[], halted = false): VerdictEvent {
  const degraded = verdicts.find((v) => v.degraded)?.degraded;
  return { type: "breaker_verdict", sessionId, verdicts, ...(halted ? { halted: true } : {}), ...(degraded ? { degraded } : {}) };
}

/** Send the verdicts to the run's `custom` stream, if anyone listens. */
export function emitVerdicts(config: LangGraphRunnableConfig, sessionId: string, verdicts: Verdict[], halted = false): void {
  config.writer?.(verdictEvent(sessionId, verdicts, halted));
}
