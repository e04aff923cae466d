import { MemoryStore } from "../../breaker/index.js";
import { SCENARIOS, type Scenario } from "../../demo/index.js";
import { runGuarded, runUnguarded, TURN_CEILING, type GuardedRun, type Spend } from "../../demo/scenario-runner.js";
import { checkTarget, type Section } from "../lib/section.js";
import { dollars, tokens } from "../report/format.js";
import { lineChart } from "../report/svg-chart.js";

/** The seed's economics: how many sessions, how many loop, what a token costs. */
export const ECONOMICS = {
  dailySessions: 10_000,
  loopingShare: 0.01,
  daysPerMonth: 30,
  contextTokens: 12_000,
  dollarsPerMillionInput: 3,
  /** What the seed says one unguarded looping session costs: 50 turns x 12,000 tokens x $3/M. */
  seedDollarsPerSession: 1.8,
} as const;

/** Where the chart goes, relative to the repository root. */
export const CHART_PATH = "docs/savings-chart.svg";

/** Looping sessions a month under the seed's economics. */
export function loopingSessionsPerMonth(): number {
  return ECONOMICS.dailySessions * ECONOMICS.loopingShare * ECONOMICS.daysPerMonth;
}

/** Dollars for input tokens at the seed's price (output tokens are left out, as in the seed). */
export function inputDollars(inputTokens: number): number {
  return (inputTokens * ECONOMICS.dollarsPerMillionInput) / 1_000_000;
}

/** A looping scenario with the seed's 12,000-token contexts. */
export function withSeedContext(scenario: Scenario): Scenario {
  return { ...scenario, inputTokensPerTurn: ECONOMICS.contextTokens };
}

/** Running totals, starting at turn 0 with 0 tokens. */
export function cumulative(perTurn: readonly number[]): [number, number][] {
  const points: [number, number][] = [[0, 0]];
  perTurn.reduce((sum, n, i) => {
    points.push([i + 1, sum + n]);
    return sum + n;
  }, 0);
  return points;
}

/** The chart of cumulative input tokens per model turn, guarded against unguarded. */
export function savingsChart(guarded: Spend, unguarded: Spend, tripTurn: number | undefined): string {
  const g = cumulative(guarded.inputTokensByTurn);
  const u = cumulative(unguarded.inputTokensByTurn);
  const lastTurn = u.at(-1)![0];
  const [gx, gy] = g.at(-1)!;
  return lineChart({
    title: "A looping session: cumulative input tokens per model turn",
    subtitle: `Modelled: scripted runaway model, assumed ${tokens(ECONOMICS.contextTokens)}-token contexts, ${TURN_CEILING}-turn ceiling, $${ECONOMICS.dollarsPerMillionInput}/M input tokens`,
    xLabel: "model turn",
    yLabel: "cumulative input tokens",
    series: [
      { label: `Without the breaker: ${tokens(unguarded.inputTokens)} tokens, ${dollars(inputDollars(unguarded.inputTokens))}`, color: "#cf222e", points: u },
      {
        label: `With the breaker: ${tokens(guarded.inputTokens)} tokens, ${dollars(inputDollars(guarded.inputTokens))}`,
        color: "#1a7f37",
        points: g,
        tail: [[lastTurn, gy]],
      },
    ],
    notes: [
      ...(tripTurn !== undefined
        ? [{ x: gx, y: gy, text: `breaker opens at turn ${tripTurn}: the run stops at ${tokens(gy)} tokens`, color: "#1a7f37", anchor: "end" as const, textX: lastTurn }]
        : []),
      { x: lastTurn, y: u.at(-1)![1], text: `turn ceiling: ${tokens(unguarded.inputTokens)} tokens`, color: "#cf222e", anchor: "end" },
    ],
  });
}

interface ScenarioSavings {
  scenario: string;
  tripTurn?: number;
  detector?: string;
  guarded: Spend;
  unguarded: Spend & { hitCeiling: boolean };
}

async function compare(scenario: Scenario): Promise<ScenarioSavings> {
  const seeded = withSeedContext(scenario);
  const guarded: GuardedRun = await runGuarded(seeded, { store: new MemoryStore() });
  const unguarded = await runUnguarded(seeded, TURN_CEILING);
  return {
    scenario: scenario.name,
    ...(guarded.halted ? { tripTurn: guarded.spend.turns, detector: guarded.trip?.finding?.detector } : {}),
    guarded: guarded.spend,
    unguarded,
  };
}

/** Savings on the seed's economic scenario, through the real graphs with the scripted model. */
export const savingsSection: Section = {
  id: "savings",
  title: "Savings on the seed's economic scenario (modelled)",
  async run(ctx) {
    ctx.log("savings: running the loop scenarios guarded and unguarded");
    const loops = [...SCENARIOS.values()].filter((s) => s.loops);
    const results: ScenarioSavings[] = [];
    for (const scenario of loops) results.push(await compare(scenario));
    const main = results.find((r) => r.scenario === "loop") ?? results[0]!;
    const perMonth = loopingSessionsPerMonth();
    const cost = (s: Spend) => inputDollars(s.inputTokens);
    const saved = cost(main.unguarded) - cost(main.guarded);
    const unguardedCents = Math.round(cost(main.unguarded) * 100) / 100;

    return {
      id: this.id,
      title: this.title,
      tables: [
        {
          title: `The "${main.scenario}" scenario (${loops.find((s) => s.name === main.scenario)?.description ?? ""}): ${ECONOMICS.loopingShare * 100}% of ${tokens(ECONOMICS.dailySessions)} daily sessions loop = ${tokens(perMonth)} looping sessions a month`,
          head: ["per looping session / per month", "without the breaker", "with the breaker", "saved"],
          rows: [
            ["model turns", String(main.unguarded.turns), main.tripTurn === undefined ? `${main.guarded.turns} (never tripped)` : `${main.guarded.turns} (trips at turn ${main.tripTurn}, ${main.detector ?? "?"})`, String(main.unguarded.turns - main.guarded.turns)],
            ["input tokens per session", tokens(main.unguarded.inputTokens), tokens(main.guarded.inputTokens), tokens(main.unguarded.inputTokens - main.guarded.inputTokens)],
            ["dollars per session", dollars(cost(main.unguarded)), dollars(cost(main.guarded)), dollars(saved)],
            ["input tokens per month", tokens(main.unguarded.inputTokens * perMonth), tokens(main.guarded.inputTokens * perMonth), tokens((main.unguarded.inputTokens - main.guarded.inputTokens) * perMonth)],
            ["dollars per month", dollars(cost(main.unguarded) * perMonth), dollars(cost(main.guarded) * perMonth), dollars(saved * perMonth)],
          ],
        },
        {
          title: "Every looping scenario, same economics (per looping session)",
          head: ["scenario", "trips at turn", "detector", "tokens with / without", "dollars with / without"],
          rows: results.map((r) => [
            r.scenario,
            r.tripTurn === undefined ? "never" : String(r.tripTurn),
            r.detector ?? "",
            `${tokens(r.guarded.inputTokens)} / ${tokens(r.unguarded.inputTokens)}`,
            `${dollars(cost(r.guarded))} / ${dollars(cost(r.unguarded))}`,
          ]),
        },
      ],
      targets: [
        checkTarget({
          id: "seed-cost-reproduced",
          description: "Modelled unguarded looping session cost, rounded to cents (the seed says $1.80)",
          measured: unguardedCents,
          comparison: "==",
          limit: ECONOMICS.seedDollarsPerSession,
          unit: "$",
        }),
      ],
      notes: [
        `Modelled, not measured: the turns and tool calls are real runs of the graphs, but the token counts are the scripted model's assumed ${tokens(ECONOMICS.contextTokens)}-token contexts and the dollars the seed's assumed price of $${ECONOMICS.dollarsPerMillionInput} per million input tokens, not a provider's bill.`,
        `Both runs go through the real graphs (buildGraph with MemoryStore, buildUnguardedGraph with toolsCondition) with the scripted model reporting ${tokens(ECONOMICS.contextTokens)} input tokens per turn; the unguarded run stops only at the ${TURN_CEILING}-turn ceiling (recursion limit). Dollars count input tokens at $${ECONOMICS.dollarsPerMillionInput}/M, as the seed does; the scripted model's 40 output tokens a turn are left out.`,
        `The turn a run trips at is the model turn whose tool call the breaker refused; that turn's tokens are already spent.`,
        `Chart: ${CHART_PATH}.`,
      ],
      data: { economics: ECONOMICS, loopingSessionsPerMonth: perMonth, main: main.scenario, scenarios: results },
      artifacts: [{ path: CHART_PATH, content: savingsChart(main.guarded, main.unguarded, main.tripTurn) }],
    };
  },
};
