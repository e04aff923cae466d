import type { Plan } from "./measure.js";
import type { Spread } from "./stats.js";

/** A table of preformatted cells, printed to the terminal and written into docs/BENCHMARKS.md. */
export interface TableData {
  title?: string;
  head: string[];
  rows: string[][];
}

/** One target of the issue, checked against what this run measured. */
export interface TargetResult {
  id: string;
  /** What is compared, in words. */
  description: string;
  measured: number;
  comparison: "<=" | ">=" | "==";
  limit: number;
  /** Unit of `measured` and `limit` ("x" for ratios). */
  unit: string;
  met: boolean;
  /** Extra context: the spread of the measurement, what it was measured on. */
  detail?: string;
}

/** What a section hands back: tables to print, targets checked, notes, and raw data for latest.json. */
export interface SectionResult {
  id: string;
  title: string;
  tables: TableData[];
  targets: TargetResult[];
  notes: string[];
  data: unknown;
  /** Files the section produced (a chart), written beside the results when the run writes anything. */
  artifacts?: { path: string; content: string }[];
  /** Set when the section could not run (a missing dependency), saying why. */
  skipped?: string;
  /** Set when the section threw: the error message. */
  failed?: string;
}

/** Run settings every section receives. */
export interface BenchContext {
  quick: boolean;
  /** Timing plan for a workload whose full-run plan is `full` (scaled down under --quick). */
  plan(full: Plan): Plan;
  /** Print a progress line. */
  log(message: string): void;
}

/** A benchmark section: an id, a title and how to run it. */
export interface Section {
  id: string;
  title: string;
  run(ctx: BenchContext): Promise<SectionResult>;
}

/** Check a measurement against a target. */
export function checkTarget(
  fields: Omit<TargetResult, "met">,
): TargetResult {
  const { measured, comparison, limit } = fields;
  const met =
    Number.isFinite(measured) &&
    (comparison === "<=" ? measured <= limit : comparison === ">=" ? measured >= limit : measured === limit);
  return { ...fields, met };
}

/** Check a ratio measured per repetition against a target, keeping its range as the detail. */
export function ratioTarget(
  id: string,
  description: string,
  value: Spread,
  comparison: "<=" | ">=",
  limit: number,
): TargetResult {
  return checkTarget({
    id,
    description,
    measured: value.median,
    comparison,
    limit,
    unit: "x",
    detail: `per-repetition range ${value.min.toFixed(2)}x–${value.max.toFixed(2)}x`,
  });
}
