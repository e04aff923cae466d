import { canonicalArgs, clipCanonical, hashText } from "../../../breaker/canonical.js";
import { decide, type Decision } from "../../../breaker/decide.js";
import { summarizeOutcome } from "../../../breaker/outcome.js";
import { parsePolicy, type PolicyInput } from "../../../breaker/policy.js";
import { freshCircuit } from "../../../breaker/stores/store.js";
import type { CallRecord, Finding, UsageTotals } from "../../../breaker/types.js";

/**
 * One call of a test window: tool, arguments, and how it ended: `out` is a
 * shorthand ("empty", "error", "pending", or an ok fingerprint); `result` /
 * `error` are a real tool output or error, read by `summarizeOutcome` as at
 * runtime. `at` is seconds on the window's clock (default: 5 s apart).
 */
export interface CallSpec {
  tool: string;
  args: unknown;
  out?: string;
  result?: unknown;
  error?: unknown;
  run?: string;
  at?: number;
}

/** Turn call specs into the records a store would hold: steps 1..n, five seconds apart unless `at` says otherwise. */
export function windowOf(specs: readonly CallSpec[]): CallRecord[] {
  return specs.map((spec, i) => {
    const canonical = canonicalArgs(spec.args);
    const record: CallRecord = {
      step: i + 1,
      id: `c${i + 1}`,
      tool: spec.tool,
      args: clipCanonical(canonical),
      argsHash: hashText(canonical),
      at: (spec.at ?? (i + 1) * 5) * 1_000,
      run: spec.run ?? "r1",
    };
    if ("result" in spec || "error" in spec) {
      record.outcome = summarizeOutcome({ ...(spec.error === undefined ? { output: spec.result } : { error: spec.error }), args: spec.args, tool: spec.tool });
      return record;
    }
    const out = spec.out ?? "pending";
    if (out === "empty" || out === "error") record.outcome = { kind: out, fingerprint: hashText(out) };
    else if (out !== "pending") record.outcome = { kind: "ok", fingerprint: hashText(out) };
    return record;
  });
}

/** Options of a decision under test. */
export interface DecideOptions {
  policy?: PolicyInput;
  usage?: Partial<UsageTotals>;
}

/** Decide on the last spec (the candidate) after the others, as the breaker would. */
export function decideOn(specs: readonly CallSpec[], options: DecideOptions = {}): Decision {
  const window = windowOf(specs);
  const candidate = window.at(-1)!;
  const runCalls = window.filter((c) => c.run === candidate.run).length;
  return decide({
    window,
    circuit: freshCircuit(candidate.run),
    usage: { inputTokens: 0, outputTokens: 0, costMicros: 0, ...options.usage },
    runCalls,
    now: candidate.at,
    policy: parsePolicy(options.policy ?? {}),
  });
}

/** The finding a detector reported in a decision, if any. */
export function findingOf(decision: Decision, detector: string): Finding | undefined {
  return decision.findings.find((f) => f.detector === detector);
}

/** Severity a detector reported ("none" when silent), for compact assertions. */
export function severity(decision: Decision, detector: string): "warn" | "block" | "none" {
  return findingOf(decision, detector)?.severity ?? "none";
}

/** `n` copies of one call spec. */
export function times(n: number, spec: CallSpec): CallSpec[] {
  return Array.from({ length: n }, () => ({ ...spec }));
}
