import { createBreaker, MemoryStore, type Breaker, type ToolCallRequest, type Verdict } from "../../breaker/index.js";
import { buildGraph } from "../../graphs/graph.js";
import { buildUnguardedGraph } from "../../graphs/unguarded-graph.js";
import { ScriptedChatModel, type Scenario } from "../../demo/index.js";
import { EXAMPLE_TOOLS } from "../../tools/index.js";
import { measureTurnByTurn, type Workload } from "../lib/measure.js";
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

/**
 * A breaker that allows every call at once and forgets every outcome: with
 * it the guarded graph costs only its shape and its nodes, which splits the
 * overhead between the graph and the breaker. Measurement only.
 */
function instantBreaker(): Breaker {
  const real = createBreaker({ store: new MemoryStore() });
  const allow = (call: ToolCallRequest): Verdict => ({ callId: call.id, tool: call.name, step: 1, state: "CLOSED", allowed: true, findings: [] });
  return { ...real, checkBatch: async (_session, calls) => calls.map(allow), completeBatch: async () => undefined };
}

/** The guarded graph, the same graph over an instant breaker, and the plain graph, on the same scripted model. */
export function graphWorkloads(): [Workload, Workload, Workload] {
  const input = () => ({ messages: [{ role: "user", content: ONE_STEP.prompt }] });
  const model = () => new ScriptedChatModel({ scenario: ONE_STEP });
  // The model is injected, so no graph needs a context: every run gets the same options.
  const guarded = buildGraph({ model: model(), store: new MemoryStore() });
  const shape = buildGraph({ model: model(), breaker: instantBreaker(), log: () => undefined });
  const plain = buildUnguardedGraph({ model: model(), tools: EXAMPLE_TOOLS });
  return [
    { id: "guarded", label: "Guarded graph (breaker on MemoryStore)", concurrency: 1, op: () => guarded.invoke(input()) },
    { id: "shape", label: "Guarded graph, breaker answering at once", concurrency: 1, op: () => shape.invoke(input()) },
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
    const [guarded, shape, plain] = await measureTurnByTurn(graphWorkloads(), plan);
    const overhead = pairedRatio(
      guarded!.reps.map((r) => r.p50Us),
      plain!.reps.map((r) => r.p50Us),
    );
    const shapeRatio = pairedRatio(
      shape!.reps.map((r) => r.p50Us),
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
          rows: [guarded!, shape!, plain!].map((m) => [m.label, spread(m.p50Us), spread(m.p99Us), spread(m.opsPerSec)]),
        },
        {
          head: ["ratio", "value"],
          rows: [
            ["guarded p50 / plain p50", spread(overhead, "x")],
            ["guarded with an instant breaker p50 / plain p50 (the graph's shape and nodes)", spread(shapeRatio, "x")],
            ["plain runs/s / guarded runs/s (mean time ratio)", spread(throughputRatio, "x")],
          ],
        },
      ],
      targets: [
        ratioTarget("graph-overhead", "Guarded graph p50 / plain toolsCondition graph p50 (one agent -> tools step)", overhead, "<=", MAX_OVERHEAD),
      ],
      notes: [
        `Each run: user message -> agent (scripted model asks for query_crm) -> tools -> agent (answer) -> END, so the time is the graph's and the breaker's, not a model's. The guarded run checks the call (MemoryStore), runs it, reports its outcome; the plain run uses LangGraph's ToolNode and toolsCondition.`,
        `The three graphs run turn by turn: each batch runs one run of each, starting from a different graph each time, so a load that comes and goes on the machine falls on all three alike; the p50s and their ratios are per repetition of ${plan.batches} runs of each graph. (Blocks of one graph's runs at a time, as before, let a busy second of a shared machine land on one graph's block and swing the ratio by ±0.3.)`,
        `In absolute terms the guard adds ${Math.round(guarded!.p50Us.median - plain!.p50Us.median)} µs per agent -> tools step (medians): ${Math.round(shape!.p50Us.median - plain!.p50Us.median)} µs of it with a breaker that answers at once (the graph's extra state channels and node, the tool's signal and timeout, argument validation, redaction of the tool's output), the rest the breaker's batch check and outcome report with its telemetry. A real model answers in hundreds of milliseconds, so on a real step it is well under 1%; the ratio here is over a model that answers instantly.`,
      ],
      data: { plan, guarded, shape, plain, overhead, shapeRatio, throughputRatio },
    };
  },
};
