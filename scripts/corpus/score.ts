import { evaluateTrajectory, type EvaluationResult } from "../../breaker/evaluator/evaluate.js";
import type { Policy, PolicyInput } from "../../breaker/policy.js";
import type { LabelledTrajectory, Split } from "./load.js";

/** One case and what the breaker did with it. */
export interface ScoredCase {
  case: LabelledTrajectory;
  result: EvaluationResult;
  /** The breaker agreed with the label: it tripped a loop, or let a legitimate run finish. */
  correct: boolean;
}

/** Recall and false-positive rate over a set of cases, with the cases behind each error. */
export interface Figures {
  loops: number;
  legit: number;
  /** Loops the breaker stopped / all loops. */
  recall: number;
  /** Legitimate runs the breaker stopped / all legitimate runs. */
  falsePositiveRate: number;
  misses: ScoredCase[];
  falseAlarms: ScoredCase[];
}

/** A split's figures: the undisputed cases, and the disputed ones (a peer's label a general breaker would not give) apart. */
export interface SplitFigures {
  split: Split;
  figures: Figures;
  disputed: ScoredCase[];
  sources: Map<string, Figures>;
}

/** Replay every case through the breaker with one policy. */
export async function scoreCases(cases: readonly LabelledTrajectory[], policy?: PolicyInput | Policy): Promise<ScoredCase[]> {
  const scored: ScoredCase[] = [];
  for (const c of cases) {
    const result = await evaluateTrajectory(c.data, policy);
    scored.push({ case: c, result, correct: result.passed === (c.label === "legit") });
  }
  return scored;
}

const ratio = (part: number, whole: number) => (whole === 0 ? Number.NaN : part / whole);

/** Recall and false-positive rate of scored cases. */
export function figuresOf(scored: readonly ScoredCase[]): Figures {
  const loops = scored.filter((s) => s.case.label === "loop");
  const legit = scored.filter((s) => s.case.label === "legit");
  const misses = loops.filter((s) => s.result.passed);
  const falseAlarms = legit.filter((s) => !s.result.passed);
  return {
    loops: loops.length,
    legit: legit.length,
    recall: ratio(loops.length - misses.length, loops.length),
    falsePositiveRate: ratio(falseAlarms.length, legit.length),
    misses,
    falseAlarms,
  };
}

/** Figures per split (undisputed cases), disputed cases apart, and figures per source. */
export function splitFigures(scored: readonly ScoredCase[], split: Split): SplitFigures {
  const inSplit = scored.filter((s) => s.case.split === split);
  const undisputed = inSplit.filter((s) => !s.case.disputed);
  const sources = new Map<string, Figures>();
  for (const source of [...new Set(undisputed.map((s) => s.case.source))].sort()) {
    sources.set(source, figuresOf(undisputed.filter((s) => s.case.source === source)));
  }
  return { split, figures: figuresOf(undisputed), disputed: inSplit.filter((s) => s.case.disputed), sources };
}

/** What stopped a run, or how close the breaker came: for the lists of misses and false alarms. */
export function verdictLine(s: ScoredCase): string {
  const { result } = s;
  if (!result.passed) {
    const blocks = result.findings.filter((f) => f.severity === "block").map((f) => f.detector);
    return `tripped at call ${result.trippedAtStep} of ${result.calls} by ${[...new Set(blocks)].join(", ")}`;
  }
  const warned = [...new Set(result.findings.map((f) => f.detector))];
  return `ran all ${result.calls} calls${warned.length ? `, warned by ${warned.join(", ")}` : ", no finding"}`;
}
