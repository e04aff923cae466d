import { MemoryStore } from "../../breaker/index.js";
import { buildGraph } from "../../graphs/graph.js";
import { buildUnguardedGraph } from "../../graphs/unguarded-graph.js";
import { ScriptedChatModel, type Scenario } from "../../demo/index.js";
import { EXAMPLE_TOOLS } from "../../tools/index.js";
import { measureInterleaved, type Workload } from "../lib/measure.js";
import { ratioTarget, type Section } from "../lib/section.js";
import { pairedRatio } from "../lib/stats.js";
import { spread } from "../report/format.js";

const MAX_OVERHEAD = 1.1;

/** One tool call, then the answer: a single agent -> tools step and back. */
export const ONE_STEP: Scenario = {
  name: "bench_one_step",
  description: "One CRM lookup, then an answer.",
  prompt: "Who owns the Acme Corp account?",
  loops: false,
  turns: [{ calls: [{ name: "query_crm", args: { company_name: "Acme Corp" } }] }],
  answer: "Acme Corp's account owner is in the CRM record above.",
};

/** The guarded and the plain graph on the same scripted model, as two workloads. */
export function graphWorkloads(): [Workload, Workload] {
  const input = () => ({ messages: [{ role: "user", content: ONE_STEP.prompt }] });
  // The model is injected, so neither graph needs a context: both runs get the same options.
  const guarded = buildGraph({ model: new ScriptedChatModel({ scenario: ONE_STEP }), store: new MemoryStore() });
  const plain = buildUnguardedGraph({ model: new ScriptedChatModel({ scenario: ONE_STEP }), tools: EXAMPLE_TOOLS });
  return [
    { id: "guarded", label: "Guarded graph (breaker on MemoryStore)", concurrency: 1, op: () => guarded.invoke(input()) },
    { id: "plain", label: "Same agent, plain toolsCondition router", concurrency: 1, op: () => plain.invoke(input()) },
  ];
}

/** Graph overhead: one agent -> tools step of the guarded graph against the plain toolsCondition graph. */
export const graphOverheadSection: Section = {
  id: "graph-overhead",
  title: "Graph overhead",
  async run(ctx) {
    const plan = ctx.plan({ warmupBatches: 40, batches: 300, reps: 7 });
    ctx.log("graph overhead: measuring");
    const [guarded, plain] = await measureInterleaved(graphWorkloads(), plan);
    const overhead = pairedRatio(
      guarded!.reps.map((r) => r.p50Us),
      plain!.reps.map((r) => r.p50Us),
    );
    const throughputRatio = pairedRatio(
      plain!.reps.map((r) => r.opsPerSec),
      guarded!.reps.map((r) => r.opsPerSec),
    );
    return {
      id: this.id,
      title: this.title,
      tables: [
        {
          head: ["graph", "p50 µs per run", "p99 µs per run", "runs/s"],
          rows: [guarded!, plain!].map((m) => [m.label, spread(m.p50Us), spread(m.p99Us), spread(m.opsPerSec)]),
        },
        {
          head: ["ratio", "value"],
          rows: [
            ["guarded p50 / plain p50", spread(overhead, "x")],
            ["plain runs/s / guarded runs/s (mean time ratio)", spread(throughputRatio, "x")],
          ],
        },
      ],
      targets: [
        ratioTarget("graph-overhead", "Guarded graph p50 / plain toolsCondition graph p50 (one agent -> tools step)", overhead, "<=", MAX_OVERHEAD),
      ],
      notes: [
        `Each run: user message -> agent (scripted model asks for query_crm) -> tools -> agent (answer) -> END, so the time is the graph's and the breaker's, not a model's. The guarded run checks the call (MemoryStore), runs it, reports its outcome; the plain run uses LangGraph's ToolNode and toolsCondition.`,
        `In absolute terms the guard adds ${Math.round(guarded!.p50Us.median - plain!.p50Us.median)} µs per agent -> tools step (medians): the breaker's batch check (in the agent step) and outcome report, its telemetry, the tool's signal and timeout, redaction of the tool's output, and the verdicts written to state. A real model answers in hundreds of milliseconds, so on a real step it is well under 1%; the ratio here is over a model that answers instantly.`,
      ],
      data: { plan, guarded, plain, overhead, throughputRatio },
    };
  },
};
