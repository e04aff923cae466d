import { beforeAll, describe, expect, it } from "vitest";
import { DETECTORS } from "../../../breaker/detectors/index.js";
import { evaluateTrajectory, type EvaluationResult } from "../../../breaker/evaluator/evaluate.js";
import { loadCorpus, type LabelledTrajectory } from "./corpus.js";

const corpus = loadCorpus();
const results = new Map<string, EvaluationResult>();

beforeAll(async () => {
  for (const t of corpus) results.set(t.id, await evaluateTrajectory(t.data));
});

const resultOf = (id: string) => results.get(id)!;
const byId = (id: string) => corpus.find((t) => t.id === id)!;
const blockers = (r: EvaluationResult) => r.findings.filter((f) => f.severity === "block").map((f) => f.detector);

describe("the labelled corpus", () => {
  it("holds at least 40 trajectories, at least half of them legitimate, with unique ids and labels", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(corpus.filter((t) => t.label === "legit").length * 2).toBeGreaterThanOrEqual(corpus.length);
    expect(new Set(corpus.map((t) => t.id)).size).toBe(corpus.length);
    for (const t of corpus) expect(["loop", "legit"], t.file).toContain(t.label);
  });

  it("has a loop for every detector", () => {
    const covered = new Set(corpus.filter((t) => t.label === "loop").map((t) => t.expectDetector));
    for (const detector of DETECTORS) expect(covered, detector.id).toContain(detector.id);
  });

  it("meets recall >= 0.95 on loops and a false-positive rate <= 0.05 on legitimate runs (default policy)", () => {
    const cell = (label: LabelledTrajectory["label"], passed: boolean) =>
      corpus.filter((t) => t.label === label && resultOf(t.id).passed === passed);
    const tp = cell("loop", false);
    const fn = cell("loop", true);
    const fp = cell("legit", false);
    const tn = cell("legit", true);
    const recall = tp.length / (tp.length + fn.length);
    const fpr = fp.length / (fp.length + tn.length);
    console.log(
      [
        "Confusion matrix (default policy):",
        "                 tripped   passed",
        `  label loop     ${String(tp.length).padStart(7)}  ${String(fn.length).padStart(7)}`,
        `  label legit    ${String(fp.length).padStart(7)}  ${String(tn.length).padStart(7)}`,
        `  recall ${recall.toFixed(3)}, false-positive rate ${fpr.toFixed(3)}`,
        ...fn.map((t) => `  missed loop: ${t.id}`),
        ...fp.map((t) => `  false positive: ${t.id} (${blockers(resultOf(t.id)).join(", ")})`),
      ].join("\n"),
    );
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(fpr).toBeLessThanOrEqual(0.05);
  });

  it("stops each loop with the detector its label names", () => {
    for (const t of corpus.filter((c) => c.label === "loop" && c.expectDetector)) {
      const r = resultOf(t.id);
      if (!r.passed) expect(blockers(r), t.id).toContain(t.expectDetector);
    }
  });

  it("explains every trip: a blocking finding at the tripped step, with evidence", () => {
    for (const t of corpus) {
      const r = resultOf(t.id);
      if (r.passed) continue;
      const block = r.findings.filter((f) => f.severity === "block");
      expect(block.length, t.id).toBeGreaterThan(0);
      for (const f of block) {
        expect(f.steps.at(-1), t.id).toBe(r.trippedAtStep);
        expect(f.message.length, t.id).toBeGreaterThan(20);
      }
    }
  });
});

describe("the classic cases", () => {
  it.each([
    ["identical-four-action-observation-pairs", 4],
    ["identical-action-varying-error-text", 3],
    ["ab-alternation-index-reader", 5],
    ["three-cycle-search-read-kb", 6],
  ])("%s trips at step %i", (id, step) => {
    expect(byId(id).label).toBe("loop");
    expect(resultOf(id)).toMatchObject({ passed: false, trippedAtStep: step });
  });

  it("a user message between repeats starts a new run and passes", () => {
    expect(resultOf("user-message-between-repeats")).toMatchObject({ passed: true });
  });
});

describe("the seed's CI cases", () => {
  // The seed's metric: Jaccard similarity of key:value pairs, loop when >= 0.65.
  const seedJaccard = (a: Record<string, unknown>, b: Record<string, unknown>) => {
    const pairs = (o: Record<string, unknown>) => new Set(Object.entries(o).map(([k, v]) => `${k}:${JSON.stringify(v)}`));
    const [x, y] = [pairs(a), pairs(b)];
    const shared = [...x].filter((p) => y.has(p)).length;
    return shared / (x.size + y.size - shared);
  };

  it("passes the clean CRM -> finance trajectory", async () => {
    await expect(byId("seed-clean-crm-finance").data).toHaveNoToolLoops();
    expect(resultOf("seed-clean-crm-finance")).toMatchObject({ passed: true, score: 1, findings: [] });
  });

  it("fails the kb_search stutter the seed's own metric let through", async () => {
    const stutter = byId("seed-kb-search-offset-stutter");
    const calls = (stutter.data as { messages: { tool_calls?: { function: { arguments: string } }[] }[] }).messages
      .flatMap((m) => m.tool_calls ?? [])
      .map((c) => JSON.parse(c.function.arguments) as Record<string, unknown>);
    expect(seedJaccard(calls[0]!, calls[1]!)).toBe(0.5);
    await expect(stutter.data).not.toHaveNoToolLoops();
    expect(resultOf(stutter.id)).toMatchObject({ passed: false, trippedAtStep: 3 });
    expect(blockers(resultOf(stutter.id))).toEqual(["semantic_stutter"]);
  });
});
