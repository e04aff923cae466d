import { describe, expect, it } from "vitest";
import { checkTarget, type SectionResult } from "../../bench/lib/section.js";
import { scalePlan } from "../../bench/lib/plan.js";
import { pairedRatio, percentile, spreadOf } from "../../bench/lib/stats.js";
import { benchmarksMarkdown, type BenchReport } from "../../bench/report/markdown.js";
import { compactNumber, escapeXml, lineChart, niceTicks } from "../../bench/report/svg-chart.js";

describe("bench statistics", () => {
  it("interpolates percentiles between ranks", () => {
    expect(percentile([10, 20, 30, 40], 50)).toBe(25);
    expect(percentile([10, 20, 30, 40], 0)).toBe(10);
    expect(percentile([10, 20, 30, 40], 100)).toBe(40);
    expect(percentile([], 50)).toBeNaN();
  });

  it("summarises repetitions as median with min-max, and pairs ratios per repetition", () => {
    expect(spreadOf([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
    expect(pairedRatio([2, 6, 3], [1, 2, 3])).toEqual({ median: 2, min: 1, max: 3 });
  });

  it("scales a plan down under --quick but keeps at least a warm-up and three repetitions", () => {
    const full = { warmupBatches: 100, batches: 800, reps: 7 };
    expect(scalePlan(full, false)).toEqual(full);
    const quick = scalePlan(full, true);
    expect(quick.batches).toBeLessThan(full.batches);
    expect(quick.warmupBatches).toBeGreaterThan(0);
    expect(quick.reps).toBe(3);
  });
});

describe("targets", () => {
  it("meets, misses, and never meets on a missing measurement", () => {
    const base = { id: "t", description: "d", unit: "x", limit: 1.5 } as const;
    expect(checkTarget({ ...base, comparison: "<=", measured: 1.2 }).met).toBe(true);
    expect(checkTarget({ ...base, comparison: "<=", measured: 1.6 }).met).toBe(false);
    expect(checkTarget({ ...base, comparison: ">=", measured: 1.4 }).met).toBe(false);
    expect(checkTarget({ ...base, comparison: "<=", measured: Number.NaN }).met).toBe(false);
    expect(checkTarget({ ...base, comparison: "==", limit: 0, measured: 0 }).met).toBe(true);
  });

  it("writes a missed target and an unmeasured section plainly into BENCHMARKS.md", () => {
    const sections: SectionResult[] = [
      {
        id: "a",
        title: "Section A",
        tables: [{ head: ["name", "value"], rows: [["x|y", "1"]] }],
        targets: [checkTarget({ id: "t", description: "Speed ratio", measured: 2, comparison: "<=", limit: 1.5, unit: "x" })],
        notes: ["a note"],
        data: null,
      },
      { id: "b", title: "Section B", tables: [], targets: [], notes: [], data: null, skipped: "no evaluator" },
    ];
    const report: BenchReport = {
      generatedAt: "2025-01-01T00:00:00.000Z",
      quick: false,
      durationSeconds: 12,
      machine: { cpuModel: "Test CPU", cpuCount: 2, totalMemoryGb: 4, os: "Linux", node: "v20", redis: "7.0", loadAverage: [1, 1, 1], packages: {} },
      methodology: ["warm-up"],
      sections,
    };
    const md = benchmarksMarkdown(report);
    expect(md).toContain("0 of 1 targets were met; **1 missed**: Speed ratio.");
    expect(md).toContain("| Speed ratio | 2.00x | <= 1.50x | **missed** |");
    expect(md).toContain("Not measured in this run: Section B.");
    expect(md).toContain("**Not measured in this run:** no evaluator");
    expect(md).toContain("| x\\|y | 1 |");
    expect(md).toContain("Test CPU, 2 logical cores");
    expect(md).toContain("Redis 7.0");
  });
});

describe("svg chart", () => {
  it("picks round ticks that cover the maximum", () => {
    expect(niceTicks(600_000, 6)).toEqual([0, 100_000, 200_000, 300_000, 400_000, 500_000, 600_000]);
    expect(niceTicks(50, 10)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50]);
    expect(niceTicks(47, 5).at(-1)).toBeGreaterThanOrEqual(47);
    expect(compactNumber(600_000)).toBe("600k");
    expect(compactNumber(1_500_000)).toBe("1.5M");
  });

  it("draws one line per series, a dashed tail, a legend and escaped text on white", () => {
    const svg = lineChart({
      title: "Tokens <per> turn & more",
      xLabel: "turn",
      yLabel: "tokens",
      series: [
        { label: "unguarded", color: "#cf222e", points: [[0, 0], [1, 10], [2, 20]] },
        { label: "guarded", color: "#1a7f37", points: [[0, 0], [1, 10]], tail: [[2, 10]] },
      ],
      notes: [{ x: 1, y: 10, text: "trips", color: "#1a7f37", anchor: "start" }],
    });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain('<rect width="760" height="440" fill="#ffffff"/>');
    expect(svg.match(/<polyline /g)).toHaveLength(3);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(1);
    expect(svg).toContain(">unguarded</text>");
    expect(svg).toContain(">guarded</text>");
    expect(svg).toContain(escapeXml("Tokens <per> turn & more"));
    expect(svg).not.toContain("<per>");
  });
});
