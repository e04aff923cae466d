import { evaluateTrajectory } from "../../breaker/evaluator/index.js";
import { loadCorpus } from "../../scripts/corpus/load.js";
import { measureInterleaved, type Workload } from "../lib/measure.js";
import type { Section } from "../lib/section.js";
import { spread } from "../report/format.js";

// Trajectories timed: an even spread over the corpus (every k-th), at most this many, so a growing
// corpus does not stretch the run; each timed pass covers them all, so every one weighs the same.
const MAX_TIMED = 240;

function evenSpread<T>(items: readonly T[], max: number): T[] {
  const step = Math.max(1, Math.ceil(items.length / max));
  return items.filter((_, i) => i % step === 0);
}

/** Offline evaluator throughput: evaluateTrajectory over the labelled corpus, one trajectory per operation. */
export const evaluatorThroughputSection: Section = {
  id: "evaluator",
  title: "Evaluator throughput",
  async run(ctx) {
    const corpus = loadCorpus();
    if (corpus.length === 0) {
      return { id: this.id, title: this.title, tables: [], targets: [], notes: [], data: null, skipped: "the trajectory corpus (test/fixtures/trajectories) is empty" };
    }
    // Sanity, untimed: what the corpus holds and how the evaluator judges it.
    const verdicts = await Promise.all(corpus.map((t) => evaluateTrajectory(t.data)));
    const calls = verdicts.reduce((n, v) => n + v.calls, 0);
    const tripped = verdicts.filter((v) => !v.passed).length;
    const timed = evenSpread(corpus, MAX_TIMED);
    const timedCalls = timed.reduce((n, t) => n + verdicts[corpus.indexOf(t)]!.calls, 0);
    let next = 0;
    const workload: Workload = {
      id: "evaluate",
      label: `evaluateTrajectory, ${timed.length} trajectories in turn`,
      concurrency: 1,
      op: () => evaluateTrajectory(timed[next++ % timed.length]!.data),
    };
    // Whole passes over the timed trajectories, so every one weighs the same.
    const passes = (n: number) => Math.max(1, Math.round(n)) * timed.length;
    const plan = ctx.plan({ warmupBatches: passes(2), batches: passes(16), reps: 7 });
    const fitted = { ...plan, warmupBatches: passes(plan.warmupBatches / timed.length), batches: passes(plan.batches / timed.length) };
    ctx.log("evaluator: measuring");
    const [measured] = await measureInterleaved([workload], fitted);
    return {
      id: this.id,
      title: this.title,
      tables: [
        {
          head: ["workload", "p50 µs per trajectory", "p99 µs per trajectory", "trajectories/s", "tool calls/s"],
          rows: [[
            measured!.label,
            spread(measured!.p50Us),
            spread(measured!.p99Us),
            spread(measured!.opsPerSec),
            spread({
              median: (measured!.opsPerSec.median * timedCalls) / timed.length,
              min: (measured!.opsPerSec.min * timedCalls) / timed.length,
              max: (measured!.opsPerSec.max * timedCalls) / timed.length,
            }),
          ]],
        },
      ],
      targets: [],
      notes: [
        `Corpus: ${corpus.length} labelled trajectories (${corpus.filter((t) => t.label === "loop").length} loops, ${corpus.filter((t) => t.label === "legit").length} legitimate), ${calls} tool calls replayed in all; the evaluator trips on ${tripped}. Timed over ${timed.length} of them, an even spread (every ${Math.ceil(corpus.length / timed.length)}th, ${timedCalls} tool calls), so the run's length does not grow with the corpus. Parsing the files is not timed; each operation converts one trajectory and replays it through a fresh breaker over a MemoryStore.`,
      ],
      data: { plan: fitted, corpus: corpus.length, timed: timed.length, calls, tripped, measured },
    };
  },
};
