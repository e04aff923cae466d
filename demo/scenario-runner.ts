import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { GraphRecursionError } from "@langchain/langgraph";
import {
  decisiveFinding,
  DEFAULT_POLICY,
  MemoryStore,
  priceUsage,
  type BreakerStore,
  type CircuitState,
  type Finding,
  type ToolOutcome,
  type Verdict,
} from "../breaker/index.js";
import { runContext, type AgentContext } from "../graphs/context.js";
import { buildGraph } from "../graphs/graph.js";
import { buildUnguardedGraph, recursionLimitForTurns } from "../graphs/unguarded-graph.js";
import { TRIPPED } from "../nodes/circuit-frame.js";
import type { Scenario } from "./scenarios.js";
import { ScriptedChatModel } from "./scripted-chat-model.js";
import { EXAMPLE_TOOLS, resetToolFixtures } from "../tools/index.js";

/** One tool call of a run, as the demo prints it. */
export interface StepRow {
  step: number;
  tool: string;
  args: string;
  outcome: "ok" | "empty" | "error" | "refused";
  state: CircuitState;
}

/** Tokens and dollars a run spent on the model. */
export interface Spend {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Input tokens of each model turn, in order (the benchmarks chart them). */
  inputTokensByTurn: number[];
}

/** What one guarded run of a scenario did. */
export interface GuardedRun {
  /** The breaker session the run's calls were recorded in. */
  sessionId: string;
  halted: boolean;
  steps: StepRow[];
  trip?: { verdict: Verdict; finding?: Finding };
  answer: string;
  spend: Spend;
}

/** The turn ceiling an unguarded agent runs into (the seed's 50 turns). */
export const TURN_CEILING = 50;

/** Model turns, tokens and cost of a message list (the fallback's answer is not a model turn). */
export function spendOf(messages: readonly BaseMessage[]): Spend {
  const spend: Spend = { turns: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, inputTokensByTurn: [] };
  for (const m of messages) {
    if (!AIMessage.isInstance(m) || !m.usage_metadata) continue;
    spend.turns += 1;
    spend.inputTokens += m.usage_metadata.input_tokens;
    spend.inputTokensByTurn.push(m.usage_metadata.input_tokens);
    spend.outputTokens += m.usage_metadata.output_tokens;
  }
  const priced = priceUsage(spend, DEFAULT_POLICY);
  spend.costUsd = (priced?.costMicros ?? 0) / 1e6;
  return spend;
}

/** One row per tool reply of a run: its step, call, outcome and the circuit's state. */
function stepRows(messages: readonly BaseMessage[]): StepRow[] {
  const calls = new Map<string, { name: string; args: unknown }>();
  for (const m of messages) {
    if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) calls.set(c.id ?? "", c);
  }
  return messages.filter(ToolMessage.isInstance).map((m) => {
    const { circuit: verdict, outcome } = (m.artifact ?? {}) as { circuit?: Verdict; outcome?: ToolOutcome };
    const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
    const refused = m.status === "error" && content.includes(TRIPPED);
    return {
      step: verdict?.step ?? 0,
      tool: m.name ?? calls.get(m.tool_call_id)?.name ?? "?",
      args: JSON.stringify(calls.get(m.tool_call_id)?.args ?? {}),
      // The outcome the tools node told the breaker, not a reading of the text, which carries the HALF_OPEN advisory.
      outcome: refused ? "refused" : (outcome?.kind ?? (m.status === "error" ? "error" : "ok")),
      state: refused ? "OPEN" : (verdict?.state ?? "CLOSED"),
    };
  });
}

/** Run a scenario through the guarded graph with the scripted model. */
export async function runGuarded(
  scenario: Scenario,
  options: { store?: BreakerStore; context?: Partial<AgentContext> } = {},
): Promise<GuardedRun> {
  resetToolFixtures();
  const graph = buildGraph({ model: new ScriptedChatModel({ scenario }), store: options.store ?? new MemoryStore() });
  const state = await graph.invoke(
    { messages: [{ role: "user", content: scenario.prompt }] },
    { context: runContext(options.context), recursionLimit: recursionLimitForTurns(TURN_CEILING * 2) },
  );
  const trip = state.halted ? state.verdicts.find((v: Verdict) => !v.allowed) : undefined;
  const last = state.messages.at(-1);
  return {
    sessionId: state.sessionId,
    halted: state.halted,
    steps: stepRows(state.messages),
    trip: trip ? { verdict: trip, finding: decisiveFinding(trip) } : undefined,
    answer: typeof last?.content === "string" ? last.content : "",
    spend: spendOf(state.messages),
  };
}

/** Run a scenario with no breaker until it answers or hits the turn ceiling. */
export async function runUnguarded(scenario: Scenario, turns = TURN_CEILING): Promise<Spend & { hitCeiling: boolean }> {
  resetToolFixtures();
  const graph = buildUnguardedGraph({ model: new ScriptedChatModel({ scenario }), tools: EXAMPLE_TOOLS });
  let messages: BaseMessage[] = [];
  let hitCeiling = false;
  try {
    const stream = await graph.stream(
      { messages: [{ role: "user", content: scenario.prompt }] },
      { streamMode: "values", recursionLimit: recursionLimitForTurns(turns) },
    );
    for await (const values of stream) messages = values.messages;
  } catch (error) {
    if (!(error instanceof GraphRecursionError)) throw error;
    hitCeiling = true;
  }
  return { ...spendOf(messages), hitCeiling };
}
