import { ascending, percentile, spreadOf, type Spread } from "./stats.js";

/**
 * Something timed: `op` is the measured operation, `concurrency` copies of it
 * run per batch (1 = one at a time), and `afterBatch` does untimed work
 * between batches (reporting tool outcomes, for instance).
 */
export interface Workload {
  id: string;
  label: string;
  concurrency: number;
  /** One timed operation; `lane` is its index within the batch. May be synchronous. */
  op(lane: number): unknown;
  afterBatch?(): Promise<void> | void;
}

/** How much to run: warm-up batches, then `reps` repetitions of `batches` batches each. */
export interface Plan {
  warmupBatches: number;
  batches: number;
  reps: number;
}

/** One repetition's raw figures. */
export interface RepFigures {
  p50Us: number;
  p99Us: number;
  opsPerSec: number;
}

/** A workload's figures: the median over repetitions and its spread, plus each repetition's values. */
export interface Measured {
  id: string;
  label: string;
  concurrency: number;
  /** Operations timed per repetition. */
  opsPerRep: number;
  p50Us: Spread;
  p99Us: Spread;
  opsPerSec: Spread;
  reps: RepFigures[];
}

const now = (): bigint => process.hrtime.bigint();

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === "function";
}

async function timed(workload: Workload, lane: number, durations: number[]): Promise<void> {
  const start = now();
  const pending = workload.op(lane);
  if (isPromise(pending)) await pending;
  durations.push(Number(now() - start));
}

// Runs batches; returns each operation's duration and the time spent in timed batches (ns).
async function runBatches(workload: Workload, batches: number): Promise<{ durations: number[]; wallNs: number }> {
  const durations: number[] = [];
  let wallNs = 0;
  const lanes = Array.from({ length: workload.concurrency }, (_, lane) => lane);
  for (let b = 0; b < batches; b++) {
    const start = now();
    if (workload.concurrency === 1) await timed(workload, 0, durations);
    else await Promise.all(lanes.map((lane) => timed(workload, lane, durations)));
    wallNs += Number(now() - start);
    await workload.afterBatch?.();
  }
  return { durations, wallNs };
}

// A workload's repetition figures from its operations' durations (ns) and the time they took together.
function repFigures(durations: number[], wallNs: number): RepFigures {
  const sorted = ascending(durations);
  return { p50Us: percentile(sorted, 50) / 1_000, p99Us: percentile(sorted, 99) / 1_000, opsPerSec: durations.length / (wallNs / 1e9) };
}

function measuredOf(workload: Workload, plan: Plan, figures: RepFigures[]): Measured {
  return {
    id: workload.id,
    label: workload.label,
    concurrency: workload.concurrency,
    opsPerRep: plan.batches * workload.concurrency,
    p50Us: spreadOf(figures.map((f) => f.p50Us)),
    p99Us: spreadOf(figures.map((f) => f.p99Us)),
    opsPerSec: spreadOf(figures.map((f) => f.opsPerSec)),
    reps: figures,
  };
}

/**
 * Measure workloads of one operation at a time (concurrency 1) turn by turn:
 * within a repetition, batch b runs one operation of every workload, starting
 * from a different workload each batch. A load that comes and goes on a
 * shared machine then falls on every workload alike, down to the operation,
 * where block interleaving (measureInterleaved) lets a busy second land on
 * one workload's block. Each repetition's figures are still per workload.
 */
export async function measureTurnByTurn(workloads: readonly Workload[], plan: Plan): Promise<Measured[]> {
  const n = workloads.length;
  const runTurns = async (batches: number): Promise<number[][]> => {
    const durations = workloads.map(() => [] as number[]);
    for (let b = 0; b < batches; b++) {
      for (let k = 0; k < n; k++) {
        const i = (b + k) % n;
        await timed(workloads[i]!, 0, durations[i]!);
        await workloads[i]!.afterBatch?.();
      }
    }
    return durations;
  };
  await runTurns(plan.warmupBatches);
  const reps = workloads.map(() => [] as RepFigures[]);
  for (let r = 0; r < plan.reps; r++) {
    const durations = await runTurns(plan.batches);
    durations.forEach((d, i) => reps[i]!.push(repFigures(d, d.reduce((sum, x) => sum + x, 0))));
  }
  return workloads.map((w, i) => measuredOf(w, plan, reps[i]!));
}

/**
 * Measure workloads side by side: warm each up, then run repetition 1 of
 * every workload, repetition 2 of every workload, and so on, so a machine
 * that slows down mid-run slows every workload alike.
 */
export async function measureInterleaved(workloads: readonly Workload[], plan: Plan): Promise<Measured[]> {
  for (const w of workloads) await runBatches(w, plan.warmupBatches);
  const reps = new Map<string, RepFigures[]>(workloads.map((w) => [w.id, []]));
  for (let r = 0; r < plan.reps; r++) {
    for (const w of workloads) {
      const { durations, wallNs } = await runBatches(w, plan.batches);
      reps.get(w.id)!.push(repFigures(durations, wallNs));
    }
  }
  return workloads.map((w) => measuredOf(w, plan, reps.get(w.id)!));
}
