// What a reliability suite measured, printed for a person and, when the
// report command runs the suites, appended to a file that docs/RELIABILITY.md
// is generated from (test/reliability/report). Figures are never copied by hand.
import { appendFileSync } from "node:fs";

/** The environment variable naming the JSON-lines file figures are appended to. */
export const FIGURES_FILE_ENV = "RELIABILITY_FIGURES";

/** One scenario's measurements. */
export interface FigureRecord {
  /** The report section it belongs to (load, faults, cluster-failover, injection, linearizability). */
  section: string;
  /** What was run, unique within its section (a fail mode, a fault, a store). */
  scenario: string;
  figures: Record<string, string | number | boolean | null | (string | number)[]>;
}

/** Print `line` (prefixed `[reliability]`) and, for the report command, record the figures behind it. */
export function reportFigures(record: FigureRecord, line: string): void {
  console.info(`[reliability] ${line}`);
  const file = process.env[FIGURES_FILE_ENV];
  if (file) appendFileSync(file, `${JSON.stringify(record)}\n`);
}
