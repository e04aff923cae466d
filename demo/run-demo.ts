// `npm run demo`: the guarded agent on scripted scenarios, no API key, no Redis, no network.
import Table from "cli-table3";
import pc from "picocolors";
import type { CircuitState } from "../breaker/index.js";
import { SCENARIOS, type Scenario } from "./scenarios.js";
import { createStoreFromEnv } from "../graphs/store-from-env.js";
import { runGuarded, runUnguarded, TURN_CEILING, type GuardedRun, type StepRow } from "./scenario-runner.js";

const ARGS_WIDTH = 44;
// One rule under the header, none between rows.
const COMPACT = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

const stateColour: Record<CircuitState, (s: string) => string> = {
  CLOSED: pc.green,
  HALF_OPEN: pc.yellow,
  OPEN: pc.red,
};

const outcomeColour: Record<StepRow["outcome"], (s: string) => string> = {
  ok: pc.green,
  empty: pc.dim,
  error: pc.yellow,
  refused: pc.red,
};

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

function tokens(n: number): string {
  return n.toLocaleString("en-US");
}

function dollars(n: number): string {
  return `$${n.toFixed(n < 1 ? 4 : 2)}`;
}

function trajectoryTable(run: GuardedRun): string {
  const table = new Table({
    head: ["step", "tool", "arguments", "outcome", "breaker"].map((h) => pc.bold(h)),
    ...COMPACT,
  });
  for (const row of run.steps) {
    table.push([
      String(row.step),
      row.tool,
      clip(row.args, ARGS_WIDTH),
      outcomeColour[row.outcome](row.outcome),
      stateColour[row.state](row.state),
    ]);
  }
  return table.toString();
}

async function show(scenario: Scenario): Promise<{ ok: boolean; run: GuardedRun; baseline: Awaited<ReturnType<typeof runUnguarded>> }> {
  // A RedisStore holds a connection open: close it, or the demo never exits.
  const store = createStoreFromEnv();
  const run = await runGuarded(scenario, { store }).finally(() => store.close?.());
  const baseline = await runUnguarded(scenario);
  const ok = run.halted === scenario.loops;
  console.log(`\n${pc.bold(pc.cyan(`■ ${scenario.name}`))}  ${scenario.description}`);
  console.log(pc.dim(`  user: ${scenario.prompt}`));
  console.log(trajectoryTable(run));
  if (run.trip) {
    const f = run.trip.finding;
    console.log(
      `${pc.red("  Tripped")} at step ${run.trip.verdict.step} by ${pc.bold(f?.detector ?? "?")}` +
        `${f?.steps.length ? ` (evidence: steps ${f.steps.join(", ")})` : ""}`,
    );
    console.log(`  ${f?.message ?? ""}`);
  } else {
    console.log(`${pc.green("  Finished")}: ${clip(run.answer.replace(/\s+/g, " "), 100)}`);
  }
  const unguarded = baseline.hitCeiling ? `${baseline.turns} turns, stopped only by the ${TURN_CEILING}-turn ceiling` : `${baseline.turns} turns`;
  console.log(
    `  Tokens: ${pc.bold(tokens(run.spend.inputTokens + run.spend.outputTokens))} guarded (${run.spend.turns} turns, ${dollars(run.spend.costUsd)})` +
      ` vs ${pc.bold(tokens(baseline.inputTokens + baseline.outputTokens))} unguarded (${unguarded}, ${dollars(baseline.costUsd)})`,
  );
  if (!ok) console.log(pc.red(`  Unexpected: this scenario should ${scenario.loops ? "trip" : "finish"}.`));
  return { ok, run, baseline };
}

async function main(): Promise<void> {
  console.log(pc.bold("Guarded agent demo: every tool call passes the circuit breaker before it runs."));
  console.log(pc.dim(`Scripted model, ${process.env.REDIS_URL ? "RedisStore (REDIS_URL)" : "in-process MemoryStore"}; cost at $3/M input and $15/M output tokens.`));
  const summary = new Table({
    head: ["scenario", "expected", "result", "tripped by", "tokens guarded", "tokens unguarded", "saved"].map((h) => pc.bold(h)),
    ...COMPACT,
  });
  let failures = 0;
  // Every scenario, in the order scenarios.ts lists them: a new one shows up without an edit here.
  for (const scenario of SCENARIOS.values()) {
    const { ok, run, baseline } = await show(scenario);
    if (!ok) failures += 1;
    const guarded = run.spend.inputTokens + run.spend.outputTokens;
    const unguarded = baseline.inputTokens + baseline.outputTokens;
    summary.push([
      scenario.name,
      scenario.loops ? "trip" : "finish",
      ok ? pc.green(run.halted ? "tripped" : "finished") : pc.red(run.halted ? "tripped" : "finished"),
      run.trip ? `${run.trip.finding?.detector ?? "?"} @ step ${run.trip.verdict.step}` : "—",
      tokens(guarded),
      tokens(unguarded),
      unguarded > guarded ? `${Math.round((1 - guarded / unguarded) * 100)}%` : "—",
    ]);
  }
  console.log(`\n${pc.bold("Summary")}\n${summary.toString()}`);
  if (failures > 0) {
    console.log(pc.red(`${failures} scenario(s) did not behave as expected.`));
    process.exitCode = 1;
  }
}

await main();
