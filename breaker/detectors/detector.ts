import type { DetectorsPolicy, Policy } from "../policy.js";
import type { CallRecord, Finding, FindingScope, Severity, ToolNature, UsageTotals } from "../types.js";

/** What a detector sees: pure data, no store, no clock of its own. */
export interface DetectionInput {
  /** The call being checked (its outcome is not known yet). */
  candidate: CallRecord;
  /** Earlier calls of the same run the loop detectors may look at, oldest first. */
  run: readonly CallRecord[];
  /** Earlier calls of the whole session still in the window, oldest first. */
  session: readonly CallRecord[];
  /** Calls in the current run, the candidate included (may exceed the window). */
  runCalls: number;
  /** Session spend, the candidate's model turn included. */
  usage: UsageTotals;
  /** Store clock, epoch ms. */
  now: number;
  /** Levels for the candidate's tool (nature and tool overrides applied). */
  levels: DetectorsPolicy;
  /** The candidate tool's nature: declared in the policy, else shown by its behaviour in the run. */
  nature?: ToolNature;
  policy: Policy;
}

/** A finding as a detector reports it; `decide` adds the detector's scope. */
export type DetectorFinding = Omit<Finding, "scope">;

/** A pure function from the window and the candidate to a finding, or null. */
export interface Detector {
  id: string;
  /** Whether its findings are about the run (loops) or the session (budgets). */
  scope: FindingScope;
  /**
   * True when it finds nothing while the run holds no earlier call, whatever
   * the levels: `decide` does not ask it then. A run's first call is every
   * session's first, and each detector asked costs a few µs there.
   */
  needsRun?: true;
  detect(input: DetectionInput): DetectorFinding | null;
}

/** Compare a measured count with warn/block levels; null below both. */
export function severityOf(countValue: number, level: { warn: number; block: number }): Severity | null {
  if (countValue >= level.block) return "block";
  if (countValue >= level.warn) return "warn";
  return null;
}

/** Build a finding when `countValue` reaches a level. */
export function findingAt(
  detector: string,
  countValue: number,
  level: { warn: number; block: number },
  steps: number[],
  message: (severity: Severity) => string,
): DetectorFinding | null {
  const severity = severityOf(countValue, level);
  return severity
    ? { detector, severity, message: message(severity), steps, count: countValue, limit: level.block }
    : null;
}
