import type { Attributes } from "@opentelemetry/api";
import { decisiveFinding } from "../decide.js";
import type { Verdict } from "../types.js";
import { BREAKER_ATTRIBUTES as A, NO_DETECTOR, OTHER_TOOL } from "./names.js";

/** Longest tool name a metric label keeps. */
const MAX_TOOL_LABEL_CHARS = 64;

/** The detector that decided a verdict: the first blocking finding, else the first, else "none". */
export function decidingDetector(verdict: Verdict): string {
  return decisiveFinding(verdict)?.detector ?? NO_DETECTOR;
}

/**
 * Tool names as metric labels, with a bounded number of distinct values: a
 * model can invent any tool name, and every new label value is a new time
 * series in the backend. Names beyond the first `max` become "_other".
 */
export class ToolLabels {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  label(tool: string): string {
    const name = tool.slice(0, MAX_TOOL_LABEL_CHARS);
    if (this.seen.has(name)) return name;
    if (this.seen.size >= this.max) return OTHER_TOOL;
    this.seen.add(name);
    return name;
  }
}

/** The labels a verdict is counted under. */
export function verdictLabels(verdict: Verdict, tool: string): Attributes {
  return { [A.state]: verdict.state, [A.detector]: decidingDetector(verdict), [A.tool]: tool };
}

/** Everything a span says about one verdict. */
export function verdictSpanAttributes(sessionId: string, verdict: Verdict): Attributes {
  return {
    [A.session]: sessionId,
    [A.tool]: verdict.tool,
    [A.callId]: verdict.callId,
    [A.step]: verdict.step,
    [A.state]: verdict.state,
    [A.allowed]: verdict.allowed,
    [A.detector]: decidingDetector(verdict),
    [A.findings]: verdict.findings.map((f) => f.detector),
    [A.degraded]: verdict.degraded !== undefined,
  };
}

/** How a fail mode answered the check, or undefined when the store did. */
export function fallbackOf(verdict: Verdict): "memory" | "refused" | undefined {
  if (verdict.findings.some((f) => f.detector === "store_unavailable")) return "refused";
  return verdict.degraded ? "memory" : undefined;
}
