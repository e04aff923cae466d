import { randomUUID } from "node:crypto";
import { BoundedCache } from "./bounded-cache.js";
import { canonicalArgs, clipCanonical, hashText } from "./canonical.js";
import { liveCircuit, replayCircuit, windowAt, type Replay, type ReplayStart } from "./circuit-replay.js";
import { priceUsage } from "./cost.js";
import { decide, type Decision } from "./decide.js";
import { BreakerError } from "./errors.js";
import { BreakerEmitter, type BreakerEventName, type BreakerListener } from "./events.js";
import { summarizeOutcome, type RawOutcome } from "./outcome.js";
import { parsePolicy, type Policy, type PolicyInput } from "./policy.js";
import { MemoryStore } from "./stores/memory-store.js";
import { instrument, type TelemetryOptions } from "./telemetry/instrument.js";
import {
  freshCircuit,
  noUsage,
  type BatchRecord,
  type BreakerStore,
  type CircuitClaim,
  type Completion,
  type NewCall,
  type StoreEvent,
  type StoreLimits,
} from "./stores/store.js";
import type { CallCompletion, CircuitRecord, Finding, SessionSnapshot, ToolCallRequest, ToolOutcome, Verdict } from "./types.js";

/** How to build a breaker: where sessions live and which policy judges them. */
export interface BreakerOptions {
  /** Defaults to a new in-process MemoryStore. */
  store?: BreakerStore;
  /** Any subset of the policy; defaults fill the rest. */
  policy?: PolicyInput | Policy;
  /** OpenTelemetry metrics and spans (no-ops until the application registers an SDK); `false` leaves them out. */
  telemetry?: TelemetryOptions | false;
}

/** The breaker's API: ask before a tool call, report after it. */
export interface Breaker extends Pick<BreakerEmitter, "on"> {
  readonly policy: Policy;
  readonly store: BreakerStore;
  /** Record the call and decide whether it may run. Idempotent per call id. */
  check(sessionId: string, call: ToolCallRequest): Promise<Verdict>;
  /**
   * Check every call of one model message, in order (each sees the ones
   * before it as running). One store operation for the whole batch.
   */
  checkBatch(sessionId: string, calls: readonly ToolCallRequest[]): Promise<Verdict[]>;
  /** Report how a call ended: a ready ToolOutcome, or the raw output / error to summarize. */
  complete(sessionId: string, callId: string, outcome: ToolOutcome | RawOutcome): Promise<void>;
  /** Report the outcomes of a batch of calls in one store operation. */
  completeBatch(sessionId: string, completions: readonly CallCompletion[]): Promise<void>;
  /** Everything known about a session (an empty CLOSED session when unknown). */
  inspect(sessionId: string): Promise<SessionSnapshot>;
  /** Forget a session. */
  reset(sessionId: string): Promise<void>;
}

/** Longest session id accepted; stores hash ids, this only bounds the work. */
export const MAX_SESSION_ID_LENGTH = 16_384;

// Sessions whose latest replayed circuit a breaker remembers (per generation of its cache).
const KNOWN_SESSIONS = 4_096;

// Store events a breaker forwards, and the breaker events they become.
const STORE_EVENTS: readonly BreakerEventName[] = ["storeError", "storeOutage", "storeRecovered"];

/**
 * The latest circuit this breaker replayed for a session: where the next
 * replay can start, and the claim it can hand the store on its next call.
 */
interface KnownCircuit {
  epoch: string;
  circuit: CircuitRecord;
  through: number;
  /** The store's decided mark is at least this (so claims up to it are not sent again). */
  acknowledged: number;
  /** The circuit this breaker wrote (or is writing) in this epoch, so concurrent checks write it once. */
  written?: CircuitRecord;
}

function assertSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== "string" || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new BreakerError(
      "INVALID_SESSION_ID",
      `Session id must be a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters.`,
    );
  }
}

function assertCall(call: ToolCallRequest): void {
  if (!call || typeof call.name !== "string" || call.name.length === 0) {
    throw new BreakerError("INVALID_CALL", "A tool call needs a non-empty string `name`.");
  }
}

function isToolOutcome(value: ToolOutcome | RawOutcome): value is ToolOutcome {
  const v = value as Partial<ToolOutcome>;
  return (v.kind === "ok" || v.kind === "empty" || v.kind === "error") && typeof v.fingerprint === "string";
}

/** The sentence a model gets beside a tool result while the circuit is HALF_OPEN. */
export function advisoryFor(findings: readonly Finding[]): string {
  const reasons = findings.map((f) => f.message).join(" ");
  return `Loop warning from the circuit breaker: ${reasons} Do not repeat this call; change your approach or answer with what you have. Another repeat will stop the run.`;
}

function verdictOf(call: ToolCallRequest, step: number, decision: Decision): Verdict {
  const verdict: Verdict = {
    callId: call.id,
    tool: call.name,
    step,
    state: decision.state,
    allowed: decision.state !== "OPEN",
    findings: decision.findings,
  };
  if (decision.state === "HALF_OPEN") verdict.advisory = advisoryFor(decision.findings);
  return verdict;
}

// The listeners and telemetry of every breaker createBreaker made, so deriveBreaker can share them.
const sharedOf = new WeakMap<Breaker, { events: BreakerEmitter; telemetry: BreakerOptions["telemetry"] }>();

const runOf = (call: ToolCallRequest): string => (call.run === undefined ? "default" : String(call.run));

// Consecutive calls of one run: a batch spanning runs is recorded run by run.
function byRun(calls: readonly ToolCallRequest[]): ToolCallRequest[][] {
  const groups: ToolCallRequest[][] = [];
  for (const call of calls) {
    const last = groups.at(-1);
    if (last && runOf(last[0]!) === runOf(call)) last.push(call);
    else groups.push([call]);
  }
  return groups;
}

const sameCircuit = (a: CircuitRecord | undefined, b: CircuitRecord): boolean => a !== undefined && a.asOf === b.asOf && a.run === b.run;

/** Create a breaker over a store and a policy. */
export function createBreaker(options: BreakerOptions = {}): Breaker {
  return buildBreaker(options, new BreakerEmitter());
}

/**
 * A breaker over `base`'s store and listeners that judges with another
 * policy: a host adds what it knows (the natures its tools declare, a run's
 * tighter limits) to a breaker it was given, and every event still reaches the
 * listeners registered on `base` (and its telemetry goes where `base`'s goes).
 * Throws for a breaker createBreaker did not make.
 */
export function deriveBreaker(base: Breaker, policy: PolicyInput | Policy): Breaker {
  const shared = sharedOf.get(base);
  if (!shared) {
    throw new BreakerError("INVALID_CALL", "deriveBreaker needs a breaker made by createBreaker (its listeners cannot be shared otherwise).");
  }
  return buildBreaker({ store: base.store, policy, telemetry: shared.telemetry }, shared.events);
}

function buildBreaker(options: BreakerOptions, events: BreakerEmitter): Breaker {
  const policy = parsePolicy(options.policy ?? {});
  const store: BreakerStore = options.store ?? new MemoryStore();
  const known = new BoundedCache<string, KnownCircuit>(KNOWN_SESSIONS);
  const limits: StoreLimits = { maxEntries: policy.windowSize, ttlSeconds: policy.ttlSeconds };

  // A store that degrades on its own (Redis down, served from memory) reports
  // it; subscribed only while someone listens, so breakers built and dropped
  // over one long-lived store leave no listeners behind.
  let unsubscribeStore: (() => void) | undefined;
  const forward = (event: StoreEvent): void => {
    if (event.type === "fallback") events.emit("storeError", { sessionId: event.sessionId ?? "", error: event.error, action: "fallback" });
    else if (event.type === "outage") events.emit("storeOutage", { operation: event.operation, error: event.error, failMode: event.failMode });
    else events.emit("storeRecovered", { operation: event.operation, downMs: event.downMs, failedOperations: event.failedOperations });
  };
  function on<K extends BreakerEventName>(name: K, listener: BreakerListener<K>): () => void {
    const off = events.on(name, listener);
    if (STORE_EVENTS.includes(name) && !unsubscribeStore) unsubscribeStore = store.subscribe?.(forward);
    return () => {
      off();
      if (STORE_EVENTS.every((n) => events.listenerCount(n) === 0)) {
        unsubscribeStore?.();
        unsubscribeStore = undefined;
      }
    };
  }

  function newCallOf(request: ToolCallRequest): NewCall {
    const canonical = canonicalArgs(request.args);
    const call: NewCall = {
      id: request.id,
      tool: request.name,
      args: clipCanonical(canonical),
      argsHash: hashText(canonical),
      // A run is an id: whatever a caller passes, it is compared (and stored) as a string.
      run: runOf(request),
    };
    const usage = priceUsage(request.usage, policy);
    if (usage) call.usage = usage;
    return call;
  }

  // What this breaker can tell the store: that the stored circuit holds every verdict through a later step.
  function claimOf(entry: KnownCircuit | undefined): CircuitClaim | undefined {
    if (!entry || entry.through <= entry.acknowledged) return undefined;
    return { epoch: entry.epoch, run: entry.circuit.run, asOf: entry.circuit.asOf, through: entry.through };
  }

  // The replay starts from the stored circuit, or from a later one this breaker replayed itself.
  function startOf(batch: BatchRecord, entry: KnownCircuit | undefined, firstNew: number): ReplayStart {
    const first = batch.calls[0]?.step ?? 1;
    if (entry && entry.epoch === batch.epoch && entry.circuit.run === batch.circuit.run && entry.through > batch.decided && entry.through < firstNew) {
      return { circuit: entry.circuit, through: entry.through };
    }
    // A decided mark further back than the history reaches (more than a window of calls
    // checked and never reported): replay what is there, from the stored circuit.
    return { circuit: batch.circuit, through: Math.max(batch.decided, first - 1) };
  }

  // A repeated call id at a step this replay did not reach: answered as it was, as far as the stored circuit tells.
  function repeatDecision(batch: BatchRecord, step: number): Decision {
    const stored = batch.circuit;
    if (stored.state === "OPEN" && stored.asOf <= step) return { state: "OPEN", findings: stored.findings };
    const { circuit } = liveCircuit(stored, step, batch.now);
    return decide({
      window: windowAt(batch, step, policy.windowSize, 0),
      circuit,
      usage: batch.usage,
      runCalls: batch.totalCalls - batch.runStart + 1,
      now: batch.now,
      policy,
    });
  }

  // `current` is what `known` holds for the session now (read by the caller in the same tick).
  function remember(sessionId: string, batch: BatchRecord, replay: Replay, current: KnownCircuit | undefined): KnownCircuit {
    const sameEpoch = current?.epoch === batch.epoch;
    if (current && sameEpoch && current.through >= replay.through) {
      current.acknowledged = Math.max(current.acknowledged, batch.decided);
      return current;
    }
    const entry: KnownCircuit = {
      epoch: batch.epoch,
      circuit: replay.circuit,
      through: replay.through,
      acknowledged: Math.max(batch.decided, sameEpoch ? current.acknowledged : 0),
    };
    if (sameEpoch && current.written) entry.written = current.written;
    known.set(sessionId, entry);
    return entry;
  }

  // True when the replayed circuit differs from the stored one and this process has not written it yet.
  function unwritten(batch: BatchRecord, replay: Replay, entry: KnownCircuit): boolean {
    return !sameCircuit(replay.circuit, batch.circuit) && !sameCircuit(entry.written, replay.circuit);
  }

  // Write a replayed circuit that differs from the stored one, once per process; the verdicts stand whatever happens.
  async function persist(sessionId: string, batch: BatchRecord, replay: Replay, entry: KnownCircuit): Promise<void> {
    entry.written = replay.circuit;
    try {
      await store.transition(sessionId, replay.circuit, limits, { epoch: batch.epoch, through: replay.through });
      entry.acknowledged = Math.max(entry.acknowledged, replay.through);
    } catch (error) {
      if (entry.written === replay.circuit) delete entry.written;
      // The next check replays the same state from the window.
      events.emit("storeError", { sessionId, error: error as Error, action: "ignored" });
    }
  }

  function refuseAll(sessionId: string, requests: readonly ToolCallRequest[], error: unknown): Verdict[] {
    const err = error instanceof Error ? error : new Error(String(error));
    events.emit("storeError", { sessionId, error: err, action: "blocked" });
    const finding: Finding = {
      detector: "store_unavailable",
      scope: "session",
      severity: "block",
      message: `The breaker's store is unavailable (${err.message}); calls are refused until it recovers.`,
      steps: [],
    };
    return requests.map((request) => ({ ...verdictOf(request, 0, { state: "OPEN", findings: [finding] }), degraded: { reason: err.message } }));
  }

  async function checkRun(sessionId: string, requests: readonly ToolCallRequest[]): Promise<Verdict[]> {
    let batch: BatchRecord;
    try {
      batch = await store.recordBatch(sessionId, requests.map(newCallOf), limits, claimOf(known.get(sessionId)));
    } catch (error) {
      return refuseAll(sessionId, requests, error);
    }
    let firstNew = Infinity;
    let upTo = 0;
    for (const { step, duplicate } of batch.steps) {
      if (!duplicate) firstNew = Math.min(firstNew, step);
      upTo = Math.max(upTo, step);
    }
    // Read again after the store's await: a concurrent check of the session may have replayed further.
    const current = known.get(sessionId);
    const start = startOf(batch, current, firstNew);
    const replay = replayCircuit(batch, start, upTo, policy);
    const verdicts = requests.map((request, i) => {
      const { step } = batch.steps[i]!;
      const verdict = verdictOf(request, step, replay.decisions.get(step) ?? repeatDecision(batch, step));
      if (batch.degraded) verdict.degraded = { ...batch.degraded };
      return verdict;
    });
    const entry = remember(sessionId, batch, replay, current);
    // Most checks change nothing: no write, and no promise to wait on.
    if (unwritten(batch, replay, entry)) await persist(sessionId, batch, replay, entry);
    // Events for this batch's own new calls; a repeat re-answers without a new transition.
    batch.steps.forEach(({ step, duplicate }, i) => {
      if (duplicate) return;
      const verdict = verdicts[i]!;
      const transition = replay.transitions.get(step);
      if (transition?.state === "OPEN") events.emit("open", { sessionId, verdict });
      else if (transition?.state === "HALF_OPEN") events.emit("halfOpen", { sessionId, verdict });
      else if (transition) events.emit("close", { sessionId, step });
      if (!verdict.allowed) events.emit("reject", { sessionId, verdict });
    });
    return verdicts;
  }

  async function checkBatch(sessionId: string, calls: readonly ToolCallRequest[]): Promise<Verdict[]> {
    assertSessionId(sessionId);
    if (!Array.isArray(calls)) throw new BreakerError("INVALID_CALL", "checkBatch() needs an array of tool calls (the calls of one model message).");
    calls.forEach(assertCall);
    // A call without an id cannot be deduplicated; give it one rather than refuse it.
    const requests = calls.map((call) => (typeof call.id === "string" && call.id ? call : { ...call, id: `anon-${randomUUID()}` }));
    const verdicts: Verdict[] = [];
    for (const group of byRun(requests)) verdicts.push(...(await checkRun(sessionId, group)));
    return verdicts;
  }

  async function check(sessionId: string, call: ToolCallRequest): Promise<Verdict> {
    const [verdict] = await checkBatch(sessionId, [call]);
    return verdict!;
  }

  async function completeBatch(sessionId: string, completions: readonly CallCompletion[]): Promise<void> {
    assertSessionId(sessionId);
    const summaries: Completion[] = [];
    for (const completion of Array.isArray(completions) ? completions : [undefined]) {
      const { callId, outcome } = (completion ?? {}) as Partial<CallCompletion>;
      if (typeof callId !== "string" || outcome === null || typeof outcome !== "object") {
        throw new BreakerError(
          "INVALID_CALL",
          "complete() needs the call id the call was checked with and an outcome object: a ToolOutcome, or { output } / { error } to summarize.",
        );
      }
      summaries.push({ callId, outcome: isToolOutcome(outcome) ? outcome : summarizeOutcome(outcome) });
    }
    if (summaries.length === 0) return;
    const entry = known.get(sessionId);
    const claim = claimOf(entry);
    try {
      await store.completeBatch(sessionId, summaries, limits, claim);
      if (claim && entry) entry.acknowledged = Math.max(entry.acknowledged, claim.through);
    } catch (error) {
      events.emit("storeError", { sessionId, error: error as Error, action: "ignored" });
    }
  }

  async function complete(sessionId: string, callId: string, outcome: ToolOutcome | RawOutcome): Promise<void> {
    await completeBatch(sessionId, [{ callId, outcome }]);
  }

  async function inspect(sessionId: string): Promise<SessionSnapshot> {
    assertSessionId(sessionId);
    const snapshot = await store.snapshot(sessionId);
    return (
      snapshot ?? { sessionId, circuit: freshCircuit(""), window: [], usage: noUsage(), totalCalls: 0, runCalls: 0 }
    );
  }

  async function reset(sessionId: string): Promise<void> {
    assertSessionId(sessionId);
    known.delete(sessionId);
    await store.reset(sessionId);
  }

  const breaker: Breaker = { policy, store, check, checkBatch, complete, completeBatch, inspect, reset, on };
  const result = options.telemetry === false ? breaker : instrument(breaker, options.telemetry);
  sharedOf.set(result, { events, telemetry: options.telemetry });
  return result;
}
