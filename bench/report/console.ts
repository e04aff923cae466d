import Table from "cli-table3";
import pc from "picocolors";
import type { SectionResult, TableData, TargetResult } from "../lib/section.js";
import { unitValue } from "./format.js";

function render(table: TableData): string {
  const out = new Table({ head: table.head.map((h) => pc.bold(h)), style: { head: [], border: [] } });
  for (const row of table.rows) out.push(row);
  return `${table.title ? `${pc.dim(table.title)}\n` : ""}${out.toString()}`;
}

/** A target as one line of text: what, measured, limit, met or missed. */
export function targetLine(target: TargetResult): string {
  return `${target.description}: ${unitValue(target.unit, target.measured)} (target ${target.comparison} ${unitValue(target.unit, target.limit)})`;
}

/** Print a section's tables, notes and targets to the terminal. */
export function printSection(result: SectionResult): void {
  console.log(`\n${pc.bold(pc.cyan(result.title))}`);
  if (result.failed) {
    console.log(pc.red(`  FAILED: ${result.failed}`));
    return;
  }
  if (result.skipped) {
    console.log(pc.yellow(`  skipped: ${result.skipped}`));
    return;
  }
  for (const table of result.tables) console.log(render(table));
  for (const note of result.notes) console.log(pc.dim(`  ${note}`));
  for (const target of result.targets) {
    console.log(`  ${target.met ? pc.green("met   ") : pc.red("MISSED")} ${targetLine(target)}`);
  }
}

/** Print the summary of every target. */
export function printTargets(results: readonly SectionResult[]): void {
  const targets = results.flatMap((r) => r.targets);
  const missed = targets.filter((t) => !t.met);
  const skipped = results.filter((r) => r.skipped);
  const failed = results.filter((r) => r.failed);
  console.log(
    `\n${pc.bold("Targets")}: ${pc.green(`${targets.length - missed.length} met`)}, ${
      missed.length ? pc.red(`${missed.length} missed`) : "0 missed"
    }${skipped.length ? pc.yellow(`, ${skipped.length} section(s) skipped`) : ""}${
      failed.length ? pc.red(`, ${failed.length} section(s) failed`) : ""
    }`,
  );
  for (const t of missed) console.log(pc.red(`  missed: ${targetLine(t)}`));
}
