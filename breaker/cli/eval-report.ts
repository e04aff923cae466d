import Table from "cli-table3";
import pc from "picocolors";
import type { EvaluationResult } from "../evaluator/evaluate.js";

/** One row of the report: a result and the id it is shown under. */
export interface ReportRow {
  id: string;
  result: EvaluationResult;
}

/** The `--json` document: results and a summary, findings cut to the public fields. */
export function jsonReport(rows: readonly ReportRow[]) {
  const results = rows.map(({ id, result }) => ({
    id,
    passed: result.passed,
    score: result.score,
    trippedAtStep: result.trippedAtStep,
    calls: result.calls,
    unanswered: result.unanswered,
    findings: result.findings.map(({ detector, severity, message, steps }) => ({ detector, severity, message, steps })),
  }));
  const passed = results.filter((r) => r.passed).length;
  return { results, summary: { total: results.length, passed, failed: results.length - passed } };
}

/** The readable report: one row per trajectory, coloured when the terminal supports it. */
export function tableReport(rows: readonly ReportRow[], width = 120): string {
  const idWidth = Math.min(44, Math.max(12, ...rows.map((r) => r.id.length + 2)));
  const findingsWidth = Math.max(30, width - idWidth - 31);
  const table = new Table({
    head: ["trajectory", "result", "score", "tripped at", "findings"].map((h) => pc.bold(h)),
    colWidths: [idWidth, 8, 7, 12, findingsWidth],
    wordWrap: true,
    style: { head: [], border: [] },
  });
  for (const { id, result } of rows) {
    const findings = result.findings.map((f) => {
      const tag = f.severity === "block" ? pc.red(`${f.detector} (block)`) : pc.yellow(`${f.detector} (warn)`);
      return `${tag} steps ${f.steps.join(",")}: ${f.message}`;
    });
    table.push([
      id,
      result.passed ? pc.green("PASS") : pc.red("FAIL"),
      result.score.toFixed(2),
      result.trippedAtStep === null ? "-" : String(result.trippedAtStep),
      findings.join("\n") || pc.dim("none"),
    ]);
  }
  const { summary } = jsonReport(rows);
  const line = `${summary.total} trajectories: ${pc.green(`${summary.passed} passed`)}, ${summary.failed > 0 ? pc.red(`${summary.failed} failed`) : "0 failed"}`;
  return [table.toString(), ...rows.flatMap(unansweredNote), line].join("\n");
}

// A recording that left results out (screenshots, outputs never exported) is judged on its calls alone: say so.
function unansweredNote({ id, result }: ReportRow): string[] {
  if (result.unanswered === 0) return [];
  return [
    pc.dim(
      `${id}: ${result.unanswered} of ${result.calls} calls have no result in the trajectory; the breaker counts them as still running, ` +
        "so identical ones are repeats with nothing new to show. Record each tool's output for a verdict on what the calls returned.",
    ),
  ];
}
