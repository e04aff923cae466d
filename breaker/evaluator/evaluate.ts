import { createBreaker } from "../breaker.js";
import { parsePolicy, type Policy, type PolicyInput } from "../policy.js";
import { isContinuation, turnKey } from "../turns.js";
import { MemoryStore } from "../stores/memory-store.js";
import { summarizeOutcome } from "../outcome.js";
import type { CircuitState, Finding, TokenUsage, ToolOutcome, Verdict } from "../types.js";
import { toTrajectory } from "./to-trajectory.js";
import type { ReplayEvent, ReplayTrajectory } from "./trajectory.js";
import { addUsage } from "../usage.js";

/** The verdict on one trajectory. */
export interface EvaluationResult {
  id?: string;
  /** False exactly when the runtime breaker would have opened the circuit. */
  passed: boolean;
  /**
   * 1 for a clean run, 0 for a tripped one; in between, 1 minus how close the
   * worst warning came to its block level (count / limit), so 0.25 means a
   * detector reached three quarters of the way to stopping the run.
   */
  score: number;
  /** 1-based index (over tool calls) of the call the breaker refused, or null. */
  trippedAtStep: number | null;
  /** Every warning and the blocking findings, in the order they first appeared. */
  findings: Finding[];
  /** Tool calls replayed (the refused one included). */
  calls: number;
  /**
   * Calls that ran but whose result the trajectory does not hold. The breaker
   * counts them as still running, as it does a call in flight: identical ones
   * are repeats with nothing new to show, so a recording without outputs
   * (screenshots left out) is judged on its calls alone.
   */
  unanswered: number;
  /** With `{ trace: true }`: every replayed call, as the breaker judged it and read its result. */
  trace?: TracedCall[];
}

/** One replayed call: the verdict before it ran and how its result was read. */
export interface TracedCall {
  /** 1-based index over tool calls, as `trippedAtStep` counts them. */
  step: number;
  tool: string;
  args: unknown;
  /** The run whose loop window the call was judged in: 0 before any user message, then one per new user turn. */
  run: number;
  state: CircuitState;
  allowed: boolean;
  findings: Finding[];
  /** How its result was read, when the trajectory holds one. */
  outcome?: ToolOutcome;
}

/** Replay options: `trace` keeps every call's verdict and reading, to show why a trajectory tripped or passed. */
export interface EvaluateOptions {
  trace?: boolean;
}

/** Model turns of a trajectory without timestamps are taken to be this far apart. */
export const SYNTHETIC_TURN_MS = 5_000;
// A fixed epoch for undated trajectories, so replays never depend on the wall clock.
const SYNTHETIC_START = Date.UTC(2025, 0, 1);

/**
 * The clock before a trajectory's first event: a fixed epoch when nothing is
 * dated; otherwise just before its first timestamp, leaving SYNTHETIC_TURN_MS
 * for each undated model turn ahead of it. A recording that dates only some
 * of its calls stays one stretch of time, not a jump of years that would
 * expire its session between its first calls and the rest.
 */
export function replayStart(events: readonly ReplayEvent[]): number {
  let undated = 0;
  for (const event of events) {
    if (event.at !== undefined) return event.at - (undated + 1) * SYNTHETIC_TURN_MS;
    if (event.type === "model") undated++;
  }
  return SYNTHETIC_START;
}

function scoreOf(findings: readonly Finding[]): number {
  let worst = 0;
  for (const f of findings) {
    if (f.count !== undefined && f.limit) worst = Math.max(worst, f.count / f.limit);
  }
  return Math.round(Math.max(0, 1 - worst) * 1_000) / 1_000;
}

function withNatures(policy: Policy, trajectory: ReplayTrajectory): Policy {
  const declared = Object.entries(trajectory.natures).filter(([tool]) => !policy.tools[tool]?.nature);
  if (declared.length === 0) return policy;
  const tools = { ...policy.tools };
  for (const [tool, nature] of declared) tools[tool] = { ...tools[tool], nature };
  return { ...policy, tools };
}

// Findings worth reporting: one per detector, severity and episode (first evidence step).
function collect(into: Map<string, Finding>, verdict: Verdict): void {
  for (const finding of verdict.findings) {
    const key = `${finding.detector}|${finding.severity}|${finding.steps[0] ?? verdict.step}`;
    // Same episode seen again: keep its first position, report its latest evidence.
    into.set(key, finding);
  }
}

/**
 * Replay a trajectory call by call through the runtime breaker (a real
 * breaker over a MemoryStore whose clock follows the trajectory): check
 * before each call, report its outcome after it, start a new run at every
 * user message. It fails exactly when the breaker opens.
 */
export async function evaluateTrajectory(input: unknown, policy?: PolicyInput | Policy, options: EvaluateOptions = {}): Promise<EvaluationResult> {
  const trajectory = toTrajectory(input);
  const base = parsePolicy(policy ?? {});
  // Trajectory time: its own timestamps when it has them, else model turns SYNTHETIC_TURN_MS apart.
  let now = replayStart(trajectory.events);
  const store = new MemoryStore({ clock: () => now });
  const breaker = createBreaker({ store, policy: withNatures(base, trajectory) });
  const session = trajectory.id ?? "trajectory";
  const findings = new Map<string, Finding>();
  // With `trace`: each call by its replay id, in call order.
  const traced = options.trace ? new Map<string, TracedCall>() : undefined;
  // Results answer the latest model turn's calls: its ids -> the ids the replay used,
  // so reused ids ("call_0" every turn) stay distinct. Calls never answered stay pending.
  let replayIds = new Map<string, string[]>();
  let awaiting: string[] = [];
  const result = (passed: boolean, trippedAtStep: number | null): EvaluationResult => {
    const list = [...findings.values()];
    const score = passed ? scoreOf(list) : 0;
    // The refused call never ran: it has no result to miss.
    const unanswered = calls - answered - (passed ? 0 : 1);
    return { ...(trajectory.id ? { id: trajectory.id } : {}), passed, score, trippedAtStep, findings: list, calls, unanswered, ...(traced ? { trace: [...traced.values()] } : {}) };
  };
  let run = 0;
  let calls = 0;
  let answered = 0;
  const said = new Set<string>();
  // The arguments of each replayed call, so its result is read against them (echoes masked).
  const argsOf = new Map<string, { args: unknown; tool: string }>();
  let pendingUsage: TokenUsage | undefined;

  for (const event of trajectory.events) {
    if (event.at !== undefined) now = Math.max(now, event.at);
    if (event.type === "user") {
      // A harness's "continue", or the same message again, keeps the run's loop window.
      if (event.text === undefined || !isContinuation(event.text, said)) run++;
      if (event.text !== undefined) said.add(turnKey(event.text));
      continue;
    }
    if (event.type === "result") {
      const queue = event.callId !== undefined ? replayIds.get(event.callId) : undefined;
      const callId = queue?.shift() ?? (event.callId === undefined ? awaiting[0] : undefined);
      if (callId === undefined) continue;
      awaiting.splice(awaiting.indexOf(callId), 1);
      answered++;
      const raw = { ...event.outcome, ...argsOf.get(callId) };
      await breaker.complete(session, callId, raw);
      const entry = traced?.get(callId);
      if (entry) entry.outcome = summarizeOutcome(raw);
      continue;
    }
    // The model answered: a user who then sends the same message again is asking again, not a harness re-sending it.
    if (event.calls.length === 0) said.clear();
    if (event.at === undefined) now += SYNTHETIC_TURN_MS;
    replayIds = new Map();
    awaiting = [];
    pendingUsage = addUsage(pendingUsage, event.usage);
    for (const call of event.calls) {
      calls++;
      const id = `${calls}:${call.id ?? ""}`;
      if (call.id !== undefined) replayIds.set(call.id, [...(replayIds.get(call.id) ?? []), id]);
      awaiting.push(id);
      argsOf.set(id, { args: call.args, tool: call.name });
      const verdict = await breaker.check(session, {
        id,
        name: call.name,
        args: call.args,
        run: `run-${run}`,
        ...(pendingUsage ? { usage: pendingUsage } : {}),
      });
      pendingUsage = undefined;
      collect(findings, verdict);
      const { state, allowed } = verdict;
      traced?.set(id, { step: calls, tool: call.name, args: call.args, run, state, allowed, findings: verdict.findings });
      if (!verdict.allowed) return result(false, verdict.step);
    }
  }
  return result(true, null);
}
