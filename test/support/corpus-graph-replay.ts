import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { MemoryStore, replayStart, SYNTHETIC_TURN_MS, toTrajectory, type RawOutcome, type ReplayEvent, type Verdict } from "../../breaker/index.js";
import { turnKey } from "../../breaker/turns.js";
import { buildGraph } from "../../graphs/graph.js";
import { TurnReplayChatModel } from "../../nodes/model/turn-replay-model.js";

// The evaluator's epoch for undated trajectories, so both replays read the same clock.

/** One recorded call as the graph replays it: its arguments, its recorded outcome, and the clock at its check. */
interface Step {
  id: string;
  name: string;
  args: Record<string, unknown>;
  outcome?: RawOutcome;
}

interface ModelTurn {
  calls: Step[];
  usage?: { input_tokens: number; output_tokens: number; total_tokens: number };
  clock: number;
}

interface UserTurn {
  text: string;
  model: ModelTurn[];
}

/** Where the graph stopped a replayed trajectory, in the evaluator's terms. */
export interface GraphReplay {
  trippedAtStep: number | null;
  /** Detectors of the blocking findings at the trip. */
  blockers: string[];
}

/**
 * Split a trajectory into user turns of model turns, giving each call its
 * recorded outcome exactly as the evaluator pairs them (by the latest model
 * turn's ids, else in order) and each model turn the clock the evaluator
 * reads at its check. Undefined when a call has no recorded result or
 * arguments that are not an object (the graph always runs a tool), or when a
 * user message comes again before any answer: such a trajectory cannot
 * replay the same way.
 */
function turnsOf(events: readonly ReplayEvent[]): UserTurn[] | undefined {
  const turns: UserTurn[] = [];
  let now = replayStart(events);
  let byId = new Map<string, Step[]>();
  let unanswered: Step[] = [];
  let n = 0;
  let answered = false;
  const saidSinceAnswer = new Set<string>();
  for (const event of events) {
    if (event.at !== undefined) now = Math.max(now, event.at);
    if (event.type === "user") {
      // A message said again before any answer (as the evaluator reads it: `turnKey`, against every message
      // since the model last answered) keeps the evaluator's run; a graph thread always answers before it
      // takes the next message, so such a recording cannot replay the same way.
      const key = turnKey(event.text ?? "");
      if (answered) saidSinceAnswer.clear();
      if (event.text !== undefined && saidSinceAnswer.has(key)) return undefined;
      saidSinceAnswer.add(key);
      turns.push({ text: event.text ?? "(a new turn)", model: [] });
      answered = false;
      continue;
    }
    if (event.type === "result") {
      const queue = event.callId !== undefined ? byId.get(event.callId) : undefined;
      const step = queue?.shift() ?? (event.callId === undefined ? unanswered[0] : undefined);
      if (!step) continue;
      unanswered.splice(unanswered.indexOf(step), 1);
      step.outcome = event.outcome;
      continue;
    }
    if (event.at === undefined) now += SYNTHETIC_TURN_MS;
    if (event.calls.length === 0) answered = true;
    if (turns.length === 0) turns.push({ text: "(start)", model: [] });
    byId = new Map();
    unanswered = [];
    const calls = event.calls.map((call): Step => {
      const step: Step = { id: `replay-${++n}`, name: call.name, args: call.args as Record<string, unknown> };
      if (call.id !== undefined) byId.set(call.id, [...(byId.get(call.id) ?? []), step]);
      unanswered.push(step);
      return step;
    });
    if (calls.some((c) => c.args === null || typeof c.args !== "object" || Array.isArray(c.args))) return undefined;
    const usage = event.usage
      ? { input_tokens: event.usage.inputTokens, output_tokens: event.usage.outputTokens, total_tokens: event.usage.inputTokens + event.usage.outputTokens }
      : undefined;
    turns.at(-1)!.model.push({ calls, ...(usage ? { usage } : {}), clock: now });
  }
  const all = turns.flatMap((t) => t.model.flatMap((m) => m.calls));
  return all.every((c) => c.outcome) ? turns : undefined;
}

/** A model that replays the recorded model turns of the current user turn, setting the store's clock before each. */
class RecordedModel extends TurnReplayChatModel {
  turn: UserTurn | undefined;

  constructor(private readonly setClock: (ms: number) => void) {
    super({});
  }

  _llmType(): string {
    return "recorded";
  }

  protected reply(index: number, _messages: BaseMessage[]): AIMessage {
    const recorded = this.turn?.model[index];
    if (!recorded) return new AIMessage({ content: "Done." });
    this.setClock(recorded.clock);
    return new AIMessage({
      content: "",
      tool_calls: recorded.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" as const })),
      ...(recorded.usage ? { usage_metadata: recorded.usage } : {}),
    });
  }
}

/** One tool per recorded name, answering each call with its recorded outcome; declared natures kept. */
function recordedTools(turns: readonly UserTurn[], natures: Record<string, string>): StructuredToolInterface[] {
  const outcomes = new Map(turns.flatMap((t) => t.model.flatMap((m) => m.calls.map((c) => [c.id, c.outcome!] as const))));
  const names = [...new Set(turns.flatMap((t) => t.model.flatMap((m) => m.calls.map((c) => c.name))))];
  return names.map(
    (name) =>
      tool(
        async (_input: unknown, runtime: { toolCallId?: string }) => {
          const outcome = outcomes.get(runtime.toolCallId ?? "");
          if (outcome?.error !== undefined) throw new Error(typeof outcome.error === "string" ? outcome.error : JSON.stringify(outcome.error));
          return outcome?.output ?? "";
        },
        { name, description: `Recorded ${name}.`, schema: z.object({}).passthrough(), ...(natures[name] ? { metadata: { nature: natures[name] } } : {}) },
      ) as unknown as StructuredToolInterface,
  );
}

/**
 * Replay a recorded trajectory through the compiled graph: one graph turn per
 * user turn on one thread, the model replaying the recorded calls, the tools
 * the recorded results, the store's clock the trajectory's. Undefined when the
 * trajectory cannot replay the same way through a graph (a call without a
 * recorded result, arguments that are not an object).
 */
export async function replayThroughGraph(data: unknown): Promise<GraphReplay | undefined> {
  const trajectory = toTrajectory(data);
  const turns = turnsOf(trajectory.events);
  if (!turns) return undefined;
  let clock = replayStart(trajectory.events);
  const store = new MemoryStore({ clock: () => clock });
  const model = new RecordedModel((ms) => (clock = ms));
  const graph = buildGraph({ model, tools: recordedTools(turns, trajectory.natures), store, checkpointer: new MemorySaver(), env: {}, log: () => {} });
  const config = { configurable: { thread_id: "replay" } };
  let human = 0;
  for (const turn of turns) {
    model.turn = turn;
    const state = (await graph.invoke({ messages: [new HumanMessage({ content: turn.text, id: `human-${++human}` })] }, config)) as {
      halted: boolean;
      verdicts: Verdict[];
    };
    const refused = state.verdicts.find((v) => !v.allowed);
    if (state.halted && refused) {
      return { trippedAtStep: refused.step, blockers: [...new Set(refused.findings.filter((f) => f.severity === "block").map((f) => f.detector))] };
    }
  }
  return { trippedAtStep: null, blockers: [] };
}
