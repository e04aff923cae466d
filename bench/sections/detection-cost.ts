import { createBreaker, decide, freshCircuit, MemoryStore, noUsage, type CallRecord, type DecisionInput } from "../../breaker/index.js";
import { benchCall, benchPolicy, recordOf } from "../lib/calls.js";
import { breakerChecker, checkWorkload } from "../lib/check-workload.js";
import { measureInterleaved, type Measured, type Workload } from "../lib/measure.js";
import { checkTarget, type Section } from "../lib/section.js";
import { spread, tokens } from "../report/format.js";

/** Window sizes the detection cost is measured at. */
export const WINDOW_SIZES = [10, 50, 200] as const;

const TARGET_WINDOW = 50;
const MAX_DECIDE_US = 50;
const SPACING_MS = 2_000;
// Checks run before measuring to fill the detectors' module-level caches.
const PRIMING_CHECKS = 2_000;

// A long-running process has full caches (argument features, similarity
// pairs), and a full cache evicts on every insert: measure that steady state,
// not a fresh process's empty caches.
function primeDetectorCaches(): void {
  const workload = decideWorkload(Math.max(...WINDOW_SIZES));
  for (let i = 0; i < PRIMING_CHECKS; i++) {
    workload.op(0);
    void workload.afterBatch?.();
  }
}

/**
 * decide() over a sliding window: each check sees the previous window moved
 * by one call plus a new candidate, as fresh copies (the stores hand out
 * copies), so per-record caches miss as they do at runtime and only the
 * candidate's arguments are new.
 */
export function decideWorkload(size: number): Workload & { states: Record<string, number> } {
  const policy = benchPolicy(size);
  const records: CallRecord[] = [];
  const recordAt = (n: number): CallRecord => {
    while (records.length <= n) {
      const i = records.length;
      records.push(recordOf(benchCall("detect", i), i + 1, 1_700_000_000_000 + i * SPACING_MS, true));
    }
    return records[n]!;
  };
  const states: Record<string, number> = { CLOSED: 0, HALF_OPEN: 0, OPEN: 0 };
  let start = 0;
  let input: DecisionInput;
  const prepare = (): void => {
    const window = Array.from({ length: size }, (_, k) => ({ ...recordAt(start + k) }));
    const { outcome: _pending, ...candidate } = recordAt(start + size);
    window.push(candidate);
    input = { window, circuit: freshCircuit(candidate.run), usage: noUsage(), runCalls: candidate.step, now: candidate.at, policy };
    start++;
  };
  prepare();
  return {
    id: `decide-${size}`,
    label: `decide(), window ${size}`,
    concurrency: 1,
    states,
    op() {
      states[decide(input).state]! += 1;
    },
    afterBatch: prepare,
  };
}

/** Detection cost against window size: decide() alone, and a whole check on MemoryStore. */
export const detectionCostSection: Section = {
  id: "detection-cost",
  title: "Detection cost against window size",
  async run(ctx) {
    const plan = ctx.plan({ warmupBatches: 300, batches: 3_000, reps: 7 });
    const decides = WINDOW_SIZES.map(decideWorkload);
    const checks = WINDOW_SIZES.map((size) => {
      const policy = benchPolicy(size);
      return checkWorkload({
        id: `check-${size}`,
        label: `breaker.check on MemoryStore, window ${size}`,
        checker: breakerChecker(createBreaker({ store: new MemoryStore(), policy })),
        sessions: [`detect-${size}`],
        concurrency: 1,
      });
    });
    for (const [i, w] of checks.entries()) await w.prefill(WINDOW_SIZES[i]! + 5);
    primeDetectorCaches();
    ctx.log("detection cost: measuring");
    const measured = await measureInterleaved([...decides, ...checks], plan);
    const byId = new Map(measured.map((m) => [m.id, m]));
    const rows = WINDOW_SIZES.map((size) => {
      const d = byId.get(`decide-${size}`)!;
      const c = byId.get(`check-${size}`)!;
      return { size, decide: d, check: c };
    });
    const atTarget = byId.get(`decide-${TARGET_WINDOW}`)!;
    const states = {
      decide: Object.fromEntries(decides.map((w) => [w.id, { ...w.states }])),
      check: Object.fromEntries(checks.map((w) => [w.id, { ...w.states }])),
    };
    const offPath = [...decides, ...checks].filter((w) => (w.states.HALF_OPEN ?? 0) + (w.states.OPEN ?? 0) > 0);
    return {
      id: this.id,
      title: this.title,
      tables: [
        {
          head: ["window (calls)", "decide() p50 µs", "decide() p99 µs", "breaker.check p50 µs", "breaker.check checks/s"],
          rows: rows.map(({ size, decide: d, check: c }) => [
            String(size),
            spread(d.p50Us),
            spread(d.p99Us),
            spread(c.p50Us),
            spread(c.opsPerSec),
          ]),
        },
      ],
      targets: [
        checkTarget({
          id: "decide-us-at-50",
          description: `decide() median µs per check, window ${TARGET_WINDOW}`,
          measured: atTarget.p50Us.median,
          comparison: "<=",
          limit: MAX_DECIDE_US,
          unit: "µs",
          detail: `range over repetitions ${spread(atTarget.p50Us)}`,
        }),
      ],
      notes: [
        "Windows hold a realistic healthy mix (seven tools, distinct arguments, ok / empty / error outcomes); every detector runs on every check. Each check gets fresh copies of the records, as the stores hand out, and one new candidate.",
        "breaker.check adds the MemoryStore record (copying the window out) and the verdict to decide().",
        `Before measuring, ${tokens(PRIMING_CHECKS)} checks at window ${Math.max(...WINDOW_SIZES)} fill the detectors' module-level caches (argument features, similarity pairs): the figures are a long-running process's steady state, where full caches evict on every insert, not a fresh process's.`,
        offPath.length === 0
          ? "Every measured decision was CLOSED (the normal path)."
          : `Some decisions left the CLOSED path (${offPath.map((w) => w.id).join(", ")}); see data.states.`,
      ],
      data: { plan, measured: measured satisfies Measured[], states },
    };
  },
};
