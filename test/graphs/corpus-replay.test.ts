import { describe, expect, it } from "vitest";
import { evaluateTrajectory } from "../../breaker/evaluator/evaluate.js";
import { loadCorpus } from "../../scripts/corpus/load.js";
import { replayThroughGraph } from "../support/corpus-graph-replay.js";

// Runtime and offline are one: every corpus case whose calls all have recorded results runs
// through the compiled graph (model and tools replaying the record) and trips where
// `npm run eval` trips it, by the same detectors.
describe("the compiled graph and the offline evaluator on the corpus", () => {
  const corpus = loadCorpus();

  it("agree on every case that can replay through a graph", async () => {
    let replayed = 0;
    const differences: string[] = [];
    for (const c of corpus) {
      const graph = await replayThroughGraph(c.data);
      if (!graph) continue;
      replayed++;
      const offline = await evaluateTrajectory(c.data);
      const blockers = [...new Set(offline.findings.filter((f) => f.severity === "block" && f.steps.at(-1) === offline.trippedAtStep).map((f) => f.detector))];
      const same = graph.trippedAtStep === offline.trippedAtStep && [...graph.blockers].sort().join() === blockers.sort().join();
      if (!same) differences.push(`${c.id}: graph ${graph.trippedAtStep} [${graph.blockers}] / eval ${offline.trippedAtStep} [${blockers}]`);
    }
    console.info(`[corpus replay] ${replayed} of ${corpus.length} cases replayed through the graph`);
    expect(differences).toEqual([]);
    expect(replayed).toBeGreaterThan(corpus.length / 2);
    // Every case through a compiled graph: minutes beside the rest of the suite on two cores.
  }, 900_000);
});
