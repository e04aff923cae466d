// docs/RELIABILITY.md from a reliability run: the template's prose with the
// figures the suites recorded and the test results filled in.
import type { MachineInfo } from "../../../bench/lib/machine.js";
import type { FigureRecord } from "../support/figures.js";

/** One test file's outcome in the run. */
export interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  /** Titles of the tests that failed. */
  failures: string[];
}

/** Everything the page is generated from. */
export interface ReliabilityRun {
  generatedAt: string;
  durationSeconds: number;
  machine: MachineInfo;
  files: FileResult[];
  figures: FigureRecord[];
}

type Figures = FigureRecord["figures"];

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const n = (value: unknown): string => (typeof value === "number" ? integer.format(value) : String(value));
const list = (value: unknown): (string | number)[] => (Array.isArray(value) ? value : []);

function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function of(run: ReliabilityRun, section: string): FigureRecord[] {
  return run.figures.filter((f) => f.section === section);
}

// Said where a section's figures are missing: the suite was skipped or failed before measuring.
function missing(run: ReliabilityRun, file: string): string {
  const result = run.files.find((f) => f.file.endsWith(file));
  if (!result) return `*Not measured in this run: \`${file}\` did not run.*`;
  if (result.failed > 0) return `*Not measured in this run: \`${file}\` failed (${result.failures.join("; ")}).*`;
  return `*Not measured in this run: \`${file}\` was skipped (no redis-server).*`;
}

function runBlock(run: ReliabilityRun): string {
  const m = run.machine;
  return [
    `Generated ${run.generatedAt} in ${Math.round(run.durationSeconds)} s on ${m.cpuModel} (${m.cpuCount} logical cores, ${m.totalMemoryGb} GB), ${m.os}, Node ${m.node}, Redis ${m.redis ?? "not found"}; load average when the run ended ${m.loadAverage.join(", ")}. Timings on a shared machine move from run to run; the counts do not.`,
  ].join("\n");
}

function resultsBlock(run: ReliabilityRun): string {
  const total = run.files.reduce((a, f) => ({ passed: a.passed + f.passed, failed: a.failed + f.failed, skipped: a.skipped + f.skipped }), { passed: 0, failed: 0, skipped: 0 });
  const rows = run.files.map((f) => [
    `\`${f.file}\``,
    n(f.passed),
    n(f.failed),
    n(f.skipped),
    `${(f.durationMs / 1_000).toFixed(1)} s`,
    f.failures.length ? f.failures.join("; ") : "",
  ]);
  return [
    `**Tests in this run: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped.**`,
    "",
    table(["file", "passed", "failed", "skipped", "time", "failed tests"], rows),
  ].join("\n");
}

function linearizabilityBlock(run: ReliabilityRun): string {
  const records = of(run, "linearizability");
  if (!records.length) return missing(run, "redis-linearizability.test.ts");
  return table(
    ["Redis", "processes x sessions", "waves", "verdicts compared", "differences from the replay", "refused because another process's call had opened the circuit", "admitted again after OPEN expired", "sessions reset midway"],
    records.map(({ scenario, figures: f }) => [
      scenario,
      `${n(f.processes)} x ${n(f.sessions)}`,
      n(f.waves),
      n(f.verdicts),
      n(f.differences),
      n(f.refusedAfterAnotherProcessOpened),
      n(f.closedAfterExpiry),
      n(f.resetSessions),
    ]),
  );
}

function loadBlock(run: ReliabilityRun): string {
  const record = of(run, "load")[0];
  if (!record) return missing(run, "load.test.ts");
  const f: Figures = record.figures;
  const rows: string[][] = [
    ["Workload", `${n(f.workers)} processes, ${n(f.sessions)} sessions of ${n(f.calls)} calls: ${n(f.checks)} checks, each admitted one completed; \`openSeconds\` ${n(f.openSeconds)}, \`ttlSeconds\` ${n(f.ttlSeconds)}`],
    ["Throughput", `${n(f.checks)} checks in ${n(f.loadMs)} ms (${n(f.checksPerSecond)} checks/s with the completes, on a machine shared by Redis, the workers and vitest); slowest single check ${n(f.slowestCheckMs)} ms`],
    ["Over-admissions", `${n(f.overAdmissions)}: ${n(f.admitted)} admitted, exactly the policy's ${n(f.expectedAdmitted)} (${n(f.allowedDistinct)} per distinct-call session, ${n(f.allowedIdentical)} per identical-call session)`],
    ["Lost outcome records", `${n(f.lostOutcomes)}: every session holds all its calls, and exactly the admitted ones carry an outcome`],
    ["Store errors", `${n(f.unavailable)} \`store_unavailable\` verdicts, 0 thrown errors`],
    ["OPEN never outlives its TTL", `${n(f.openSessions)} circuits OPEN with \`openUntil\` exactly \`openSeconds\` after the tripping call; the identical-call sessions refuse a probe before \`openUntil\` and admit one after it (${n(f.refusedBeforeOpenUntil)} / ${n(f.admittedAfterOpenUntil)})`],
    ["Keys expire", `${n(f.peakKeys)} keys at peak, every one with 0 < PTTL <= ${n(f.ttlSeconds)} s; DBSIZE 0 after the TTL`],
    ["Redis memory", `\`used_memory\` ${n(f.memoryBaselineBytes)} B before, peak ${n(f.memoryPeakBytes)} B, ${n(f.memoryAfterBytes)} B after the TTLs with DBSIZE 0 (the test allows ${n(f.memorySlackBytes)} B above the baseline for allocator and dict-table slack)`],
  ];
  return table(["check", "measured"], rows);
}

function faultsBlock(run: ReliabilityRun): string {
  const records = of(run, "faults");
  if (!records.length) return missing(run, "faults-standalone.test.ts");
  const rows = records.map(({ scenario, figures: f }) => {
    const fault = scenario.startsWith("kill") ? "Redis killed (SIGKILL) during the 2nd tool call, then restarted" : scenario.startsWith("pause-") ? "Redis paused (SIGSTOP) during the 2nd tool call" : "Breaker calls on a paused Redis, identical calls so the circuit changes state";
    let result: string;
    if (scenario.startsWith("paused-breaker")) {
      const states = list(f.checkStates);
      const ms = list(f.checkMs);
      result = `${n(f.calls)} breaker calls; checks ${states.map((s, i) => `${s} ${n(ms[i])} ms`).join(", ")}; slowest ${f.slowestOp} ${n(f.slowestMs)} ms (commandTimeoutMs ${n(f.commandTimeoutMs)}, bound ${n(f.boundMs)} ms)`;
    } else {
      const after = scenario.startsWith("kill") ? `after the restart a new run has ${n(f.callsAfterRestart)}/4 calls in Redis` : `${n(f.callsInRedisAfterResume)} calls of the run in Redis after SIGCONT (timed-out commands ran late)`;
      result = `${f.halted ? "halted" : "answered"}, ${n(f.toolRuns)}/4 tool runs; slowest store op ${f.slowestOp} ${n(f.slowestMs)} ms (bound ${n(f.boundMs)} ms); ${after}`;
    }
    return [fault, String(f.failMode), result];
  });
  return table(["fault", "failMode", "measured"], rows);
}

function clusterBlock(run: ReliabilityRun): string {
  const records = of(run, "cluster-failover");
  if (!records.length) return missing(run, "faults-cluster.test.ts");
  return table(
    ["Redis Cluster (3 masters + 3 replicas): the master of the session's slot killed after its replica caught up", "failMode", "measured"],
    records.map(({ figures: f }) => [
      "a graph run during the failover, then checks until the promoted replica serves the session",
      String(f.failMode),
      `run during the failover ${f.halted ? "halted" : "answered"} (${n(f.toolRuns)}/4 tool runs); ${n(f.refusedChecks)} checks refused meanwhile, never allowed on a guess; served by the promoted replica ${n(f.recoveredMs)} ms after the kill, ${n(f.replicatedCallsKept)}/3 replicated calls and their outcomes kept; slowest store op ${f.slowestOp} ${n(f.slowestMs)} ms (bound ${n(f.boundMs)} ms)`,
    ]),
  );
}

function injectionBlock(run: ReliabilityRun): string {
  const records = of(run, "injection");
  if (!records.length) return missing(run, "prompt-injection.test.ts");
  return table(
    ["obeyed how", "arguments", "calls requested", "tool runs", "tripped by"],
    records.map(({ figures: f }) => [
      f.batch === "one_message" ? "all 100 calls in one message" : "one call per turn",
      String(f.args),
      n(f.requested),
      n(f.ran),
      list(f.detectors).map((d) => `\`${d}\``).join(" + "),
    ]),
  );
}

/** A figure the template names inline as {{figure:section/scenario/name}}, or why the run has none. */
function inlineFigure(run: ReliabilityRun, path: string): string {
  const [section, scenario, name] = path.split("/");
  // A scenario may record its figures in several parts (one per test): the latest that has the name wins.
  const value = run.figures.filter((f) => f.section === section && f.scenario === scenario && name && name in f.figures).at(-1)?.figures[name!];
  if (value === undefined) return `(${path}: not measured in this run)`;
  return Array.isArray(value) ? value.map(n).join(", ") : n(value);
}

/** The whole page: the template with every placeholder filled from the run. */
export function reliabilityMarkdown(template: string, run: ReliabilityRun): string {
  const blocks: Record<string, string> = {
    run: runBlock(run),
    results: resultsBlock(run),
    linearizability: linearizabilityBlock(run),
    load: loadBlock(run),
    faults: faultsBlock(run),
    cluster: clusterBlock(run),
    injection: injectionBlock(run),
  };
  return template
    .replace(/\{\{figure:([\w/-]+)\}\}/g, (_match, path: string) => inlineFigure(run, path))
    .replace(/\{\{(\w+)\}\}/g, (match, name: string) => blocks[name] ?? match);
}
