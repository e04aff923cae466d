import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { reliabilityMarkdown, type ReliabilityRun } from "./report/markdown.js";
import type { FigureRecord } from "./support/figures.js";

const template = await readFile(new URL("./report/template.md", import.meta.url), "utf8");

function run(patch: Partial<ReliabilityRun> = {}): ReliabilityRun {
  return {
    generatedAt: "2026-12-01T00:00:00.000Z",
    durationSeconds: 61,
    machine: { cpuModel: "cpu", cpuCount: 2, totalMemoryGb: 8, os: "Linux", node: "v20", redis: "7.0.15", loadAverage: [1, 1, 1], packages: {} },
    files: [
      { file: "test/reliability/load.test.ts", passed: 1, failed: 0, skipped: 0, durationMs: 30_000, failures: [] },
      { file: "test/reliability/faults-cluster.test.ts", passed: 1, failed: 1, skipped: 0, durationMs: 20_000, failures: ["failover closed"] },
    ],
    figures: [
      {
        section: "linearizability",
        scenario: "standalone",
        figures: { processes: 4, sessions: 24, waves: 9, verdicts: 1104, differences: 0, refusedAfterAnotherProcessOpened: 601, closedAfterExpiry: 36, resetSessions: 12 },
      },
      { section: "injection", scenario: "one_message/identical", figures: { batch: "one_message", args: "identical", requested: 101, ran: 1, detectors: ["identical_repeat"] } },
    ],
    ...patch,
  };
}

describe("docs/RELIABILITY.md generation", () => {
  it("fills every placeholder from the run: figures, test results, and why a section has none", () => {
    const page = reliabilityMarkdown(template, run());
    expect(page).not.toMatch(/\{\{\w+\}\}/);
    for (const text of [
      "| standalone | 4 x 24 | 9 | 1,104 | 0 | 601 | 36 | 12 |",
      "| all 100 calls in one message | identical | 101 | 1 | `identical_repeat` |",
      "**Tests in this run: 2 passed, 1 failed, 0 skipped.**",
      "Not measured in this run: `faults-cluster.test.ts` failed (failover closed)",
      "Not measured in this run: `faults-standalone.test.ts` did not run",
      // The load suite passed but recorded nothing: said so, not left blank.
      "Not measured in this run: `load.test.ts` was skipped",
    ]) {
      expect(page).toContain(text);
    }
  });

  it("fills figures named inline from the run, the latest record holding the name, and says which one a run lacks", () => {
    const figures: FigureRecord[] = [
      { section: "hostile", scenario: "key-order", figures: { runs: 500 } },
      { section: "hostile", scenario: "key-order", figures: { reordered: 1_234 } },
    ];
    const page = reliabilityMarkdown("{{figure:hostile/key-order/runs}} runs, {{figure:hostile/key-order/reordered}} reordered, {{figure:hostile/volatile/runs}}", run({ figures }));
    expect(page).toBe("500 runs, 1,234 reordered, (hostile/volatile/runs: not measured in this run)");
  });

  it("is what the committed page was generated with (run `npm run reliability` after changing the template)", async () => {
    const committed = await readFile(new URL("../../docs/RELIABILITY.md", import.meta.url), "utf8");
    expect(committed.split("\n")[0]).toBe(template.split("\n")[0]);
    const headings = (text: string) => text.split("\n").filter((line) => line.startsWith("## "));
    expect(headings(committed)).toEqual(headings(template));
  });
});
