import Table from "cli-table3";
import pc from "picocolors";
import type { EvaluationResult, TracedCall } from "../evaluator/evaluate.js";
import type { ToolOutcome } from "../types.js";

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
    ...(result.trace ? { trace: result.trace.map(tracedJson) } : {}),
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

// A traced call in the JSON report: its verdict's counts and its result's reading, fingerprints left out.
function tracedJson({ step, tool, args, run, state, allowed, findings, outcome }: TracedCall) {
  return {
    step,
    tool,
    args,
    run,
    state,
    allowed,
    findings: findings.map(({ detector, severity, count, limit }) => ({ detector, severity, count, limit })),
    ...(outcome ? { result: reading(outcome) } : {}),
  };
}

// What the breaker read in a result: its kind and the flags that change how repeats of it are judged.
function reading(outcome: ToolOutcome): string {
  const flags = [
    outcome.transient && "transient",
    outcome.inProgress && "work in progress",
    outcome.cancelled && "cancelled",
    outcome.changed && "changed something",
    outcome.repeatRefused && "refused as a repeat",
  ].filter(Boolean);
  return flags.length > 0 ? `${outcome.kind} (${flags.join(", ")})` : outcome.kind;
}

const MAX_TRACED_ARGS = 100;

/** Every call of each traced trajectory, one line for the verdict before it ran and one for its result. */
export function traceReport(rows: readonly ReportRow[]): string {
  return rows
    .filter(({ result }) => result.trace)
    .map(({ id, result }) => {
      const lines = result.trace!.flatMap((call) => {
        const args = JSON.stringify(call.args) ?? "";
        const shown = args.length > MAX_TRACED_ARGS ? `${args.slice(0, MAX_TRACED_ARGS)}…` : args;
        const state = call.allowed ? call.state : pc.red(`${call.state}, refused`);
        const found = call.findings.map((f) => `${f.detector} ${f.severity} ${f.count ?? "?"}/${f.limit ?? "?"}`).join("; ");
        const verdict = `  #${call.step} run ${call.run} ${pc.bold(call.tool)} ${shown} [${state}]${found ? ` ${pc.yellow(found)}` : ""}`;
        return call.outcome ? [verdict, pc.dim(`      -> ${reading(call.outcome)}`)] : [verdict];
      });
      return [`${pc.bold(id)}: ${result.passed ? "passed" : `tripped at call ${result.trippedAtStep}`}`, ...lines].join("\n");
    })
    .join("\n\n");
}
