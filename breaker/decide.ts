import { DETECTORS, type DetectionInput } from "./detectors/index.js";
import { namedNature, observedNature } from "./detectors/observed-nature.js";
import { detectorsFor, natureOf, type Policy } from "./policy.js";
import type { CallRecord, CircuitRecord, CircuitState, Finding, UsageTotals } from "./types.js";

/** What the decision needs: the window up to the candidate, and the session's counters. */
export interface DecisionInput {
  /** Session window, oldest first, ending with the candidate call. */
  window: readonly CallRecord[];
  circuit: CircuitRecord;
  usage: UsageTotals;
  runCalls: number;
  now: number;
  policy: Policy;
}

/** The state the findings call for, and the findings themselves. */
export interface Decision {
  state: CircuitState;
  findings: Finding[];
}

/** Circuit state implied by a set of findings: any block opens, any warning half-opens. */
export function stateOf(findings: readonly Finding[]): CircuitState {
  if (findings.some((f) => f.severity === "block")) return "OPEN";
  return findings.length > 0 ? "HALF_OPEN" : "CLOSED";
}

/** The finding that decided a verdict: the first blocking one, else the first (none for a clean call). */
export function decisiveFinding(verdict: { findings: readonly Finding[] }): Finding | undefined {
  return verdict.findings.find((f) => f.severity === "block") ?? verdict.findings[0];
}

/**
 * Run every detector over the window and turn their findings into a state.
 * Pure: the runtime breaker and the offline evaluator both call this.
 */
export function decide(input: DecisionInput): Decision {
  const candidate = input.window.at(-1);
  if (!candidate) return { state: "CLOSED", findings: [] };
  const session = input.window.slice(0, -1);
  const since = input.circuit.since;
  const run: CallRecord[] = [];
  for (let i = 0; i < session.length; i++) {
    const c = session[i]!;
    if (c.run === candidate.run && c.step > since) run.push(c);
  }
  const observed =
    (input.policy.inferPolling ? observedNature(candidate, run) : undefined) ??
    (input.policy.inferSideEffects ? namedNature(candidate.tool) : undefined);
  const nature = natureOf(input.policy, candidate.tool) ?? observed;
  // One shape whether or not a nature is known (a conditional spread would copy through the slow path).
  const detection: DetectionInput = {
    candidate,
    run,
    session,
    runCalls: input.runCalls,
    usage: input.usage,
    now: input.now,
    levels: detectorsFor(input.policy, candidate.tool, observed),
    nature,
    policy: input.policy,
  };
  const findings: Finding[] = [];
  const firstOfRun = run.length === 0;
  for (let i = 0; i < DETECTORS.length; i++) {
    const detector = DETECTORS[i]!;
    if (firstOfRun && detector.needsRun) continue;
    const finding = detector.detect(detection);
    if (finding) findings.push({ ...finding, scope: detector.scope });
  }
  return { state: stateOf(findings), findings };
}
