import type { Finding } from "../types.js";

/** One line per finding: "[block] semantic_stutter at steps 1, 2, 3: <message>". */
export function describeFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return "no findings";
  return findings
    .map((f) => `[${f.severity}] ${f.detector} at step${f.steps.length === 1 ? "" : "s"} ${f.steps.join(", ")}: ${f.message}`)
    .join("\n");
}
