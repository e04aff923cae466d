import { randomUUID } from "node:crypto";
import { canonicalArgs, clipCanonical, hashText } from "./canonical.js";
import { priceUsage } from "./cost.js";
import { decide, type Decision } from "./decide.js";
import { BreakerError } from "./errors.js";
import { BreakerEmitter, type BreakerEventName, type BreakerListener } from "./events.js";
import { summarizeOutcome, type RawOutcome } from "./outcome.js";
import { parsePolicy, type Policy, type PolicyInput } from "./policy.js";
import { MemoryStore } from "./stores/memory-store.js";
import { instrument, type TelemetryOptions } from "./telemetry/instrument.js";
import { freshCircuit, noUsage, type BreakerStore, type RecordResult, type StoreLimits } from "./stores/store.js";
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

function assertSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== "string" || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new BreakerError(
      "INVALID_SESSION_ID",
      `Session id must be a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters.`,
    );
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
  // A store that degrades on its own (Redis down, served from memory) reports
  // it as a store error. Subscribed only while someone listens, so breakers
  // built and dropped over one long-lived store leave no listeners behind.
  let unsubscribeStore: (() => void) | undefined;
  function on<K extends BreakerEventName>(name: K, listener: BreakerListener<K>): () => void {
    const off = events.on(name, listener);
    if (name === "storeError" && !unsubscribeStore) {
      unsubscribeStore = store.subscribe?.((event) =>
        events.emit("storeError", { sessionId: event.sessionId ?? "", error: event.error, action: "fallback" }),
      );
    }
    return () => {
      off();
      if (name === "storeError" && events.listenerCount("storeError") === 0) {
        unsubscribeStore?.();
        unsubscribeStore = undefined;
      }
    };
  }
  const limits: StoreLimits = { maxEntries: policy.windowSize, ttlSeconds: policy.ttlSeconds };

  // The circuit a fresh decision starts from: an expired OPEN gives the loop
  // detectors a clean slate (since = the step before this call).
  function liveCircuit(result: RecordResult): { circuit: CircuitRecord; expired: boolean } {
    const { circuit, now, record } = result;
    if (circuit.state === "OPEN" && circuit.openUntil <= now && circuit.asOf < record.step) {
      return { circuit: { ...circuit, state: "CLOSED", openUntil: 0, since: record.step - 1, findings: [] }, expired: true };
    }
    return { circuit, expired: false };
  }

  async function persist(sessionId: string, circuit: CircuitRecord): Promise<void> {
    try {
      await store.transition(sessionId, circuit, limits);
    } catch (error) {
      // The verdict stands; the next check recomputes the same state from the window.
      events.emit("storeError", { sessionId, error: error as Error, action: "ignored" });
    }
  }

  async function check(sessionId: string, call: ToolCallRequest): Promise<Verdict> {
    assertSessionId(sessionId);
    if (!call || typeof call.name !== "string" || call.name.length === 0) {
      throw new BreakerError("INVALID_CALL", "A tool call needs a non-empty string `name`.");
    }
    // A call without an id cannot be deduplicated; give it one rather than refuse it.
    const request: ToolCallRequest = typeof call.id === "string" && call.id ? call : { ...call, id: `anon-${randomUUID()}` };
    const canonical = canonicalArgs(request.args);
    let result: RecordResult;
    try {
      result = await store.record(
        sessionId,
        {
          id: request.id,
          tool: request.name,
          args: clipCanonical(canonical),
          argsHash: hashText(canonical),
          run: request.run ?? "default",
          usage: priceUsage(request.usage, policy),
        },
        limits,
      );
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      events.emit("storeError", { sessionId, error: err, action: "blocked" });
      const finding: Finding = {
        detector: "store_unavailable",
        scope: "session",
        severity: "block",
        message: `The breaker's store is unavailable (${err.message}); calls are refused until it recovers.`,
        steps: [],
      };
      return verdictOf(request, 0, { state: "OPEN", findings: [finding] });
    }

    const { record, now } = result;
    const stored = result.circuit;
    if (result.duplicate) {
      // A re-run of the same check: same answer, no new transition.
      if (stored.state === "OPEN" && stored.asOf <= record.step) {
        return verdictOf(request, record.step, { state: "OPEN", findings: stored.findings });
      }
      return verdictOf(request, record.step, decide({ ...result, policy, circuit: stored }));
    }
    const { circuit, expired } = liveCircuit(result);
    if (circuit.state === "OPEN") {
      const verdict = verdictOf(request, record.step, { state: "OPEN", findings: circuit.findings });
      events.emit("reject", { sessionId, verdict });
      return verdict;
    }

    const decision = decide({ ...result, circuit, policy });
    const verdict = verdictOf(request, record.step, decision);
    if (decision.state !== circuit.state || expired) {
      await persist(sessionId, {
        ...circuit,
        state: decision.state,
        openUntil: decision.state === "OPEN" ? now + policy.openSeconds * 1_000 : 0,
        findings: decision.findings,
        asOf: record.step,
      });
      if (decision.state === "OPEN") events.emit("open", { sessionId, verdict });
      else if (decision.state === "HALF_OPEN") events.emit("halfOpen", { sessionId, verdict });
      else events.emit("close", { sessionId, step: record.step });
    }
    if (!verdict.allowed) events.emit("reject", { sessionId, verdict });
    return verdict;
  }

  async function complete(sessionId: string, callId: string, outcome: ToolOutcome | RawOutcome): Promise<void> {
    assertSessionId(sessionId);
    if (typeof callId !== "string" || outcome === null || typeof outcome !== "object") {
      throw new BreakerError(
        "INVALID_CALL",
        "complete() needs the call id the call was checked with and an outcome object: a ToolOutcome, or { output } / { error } to summarize.",
      );
    }
    const summary = isToolOutcome(outcome) ? outcome : summarizeOutcome(outcome);
    try {
      await store.complete(sessionId, callId, summary, limits);
    } catch (error) {
      events.emit("storeError", { sessionId, error: error as Error, action: "ignored" });
    }
  }

  // TODO(issue 13): one store round trip for the batch; sequential until the stores grow a batch API.
  async function checkBatch(sessionId: string, calls: readonly ToolCallRequest[]): Promise<Verdict[]> {
    const verdicts: Verdict[] = [];
    for (const call of calls) verdicts.push(await check(sessionId, call));
    return verdicts;
  }

  async function completeBatch(sessionId: string, completions: readonly CallCompletion[]): Promise<void> {
    for (const { callId, outcome } of completions) await complete(sessionId, callId, outcome);
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
    await store.reset(sessionId);
  }

  const breaker: Breaker = { policy, store, check, checkBatch, complete, completeBatch, inspect, reset, on };
  const result = options.telemetry === false ? breaker : instrument(breaker, options.telemetry);
  sharedOf.set(result, { events, telemetry: options.telemetry });
  return result;
}
