import type { Breaker, BreakerStore, CircuitClaim, CircuitState, Policy, ToolCallRequest, ToolOutcome } from "../../breaker/index.js";
import { benchCall, newCallOf, type BenchCall } from "./calls.js";
import type { Workload } from "./measure.js";

/** What a check answers, as far as the benchmark cares. */
export interface CheckAnswer {
  step: number;
  state: CircuitState;
}

/** Anything that checks tool calls against a session's history: the breaker, or a baseline. */
export interface Checker {
  check(sessionId: string, call: ToolCallRequest): Promise<CheckAnswer>;
  /** The calls of one model message at once (the breaker's batch path). */
  checkBatch?(sessionId: string, calls: ToolCallRequest[]): Promise<CheckAnswer[]>;
  complete(sessionId: string, call: { id: string; step: number }, outcome: ToolOutcome): Promise<void>;
}

/** The breaker as a Checker. */
export function breakerChecker(breaker: Breaker): Checker {
  return {
    check: (sessionId, call) => breaker.check(sessionId, call),
    checkBatch: (sessionId, calls) => breaker.checkBatch(sessionId, calls),
    complete: (sessionId, call, outcome) => breaker.complete(sessionId, call.id, outcome),
  };
}

/**
 * A store's `recordBatch` alone as a Checker: the round trip a check makes,
 * without the detectors, claiming each step as the breaker does. Splits a
 * check's time into store and detection.
 */
export function storeChecker(store: BreakerStore, policy: Policy): Checker {
  const limits = { maxEntries: policy.windowSize, ttlSeconds: policy.ttlSeconds };
  const claims = new Map<string, CircuitClaim>();
  return {
    async check(sessionId, call) {
      const batch = await store.recordBatch(sessionId, [newCallOf(call)], limits, claims.get(sessionId));
      const { step } = batch.steps[0]!;
      claims.set(sessionId, { epoch: batch.epoch, run: batch.circuit.run, asOf: batch.circuit.asOf, through: step });
      return { step, state: batch.circuit.state };
    },
    async complete(sessionId, call, outcome) {
      await store.completeBatch(sessionId, [{ callId: call.id, outcome }], limits, claims.get(sessionId));
    },
  };
}

/** Verdict states a workload saw, to show the measured path stayed the normal (CLOSED) one. */
export type StateCounts = Record<CircuitState, number>;

/** A check workload over a pool of sessions, plus what it saw. */
export interface CheckWorkload extends Workload {
  states: StateCounts;
  /** Fill every session's window (untimed) so checks run against full windows. */
  prefill(calls: number): Promise<void>;
}

/**
 * Check synthetic healthy calls against a pool of sessions. With concurrency
 * 1 the sessions take turns; with concurrency N each batch checks one call in
 * each of N sessions at once. With `calls` > 1 each operation is one
 * checkBatch of that many calls of one session (the calls of one model
 * message). Outcomes are reported after each batch, untimed, so the detectors
 * see completed calls as they would in an agent.
 */
export function checkWorkload(options: {
  id: string;
  label: string;
  checker: Checker;
  sessions: readonly string[];
  concurrency: number;
  calls?: number;
}): CheckWorkload {
  const { checker, sessions, concurrency } = options;
  const size = options.calls ?? 1;
  const next = new Map<string, number>(sessions.map((s) => [s, 0]));
  const pending: { session: string; call: BenchCall; step: number }[] = [];
  const states: StateCounts = { CLOSED: 0, HALF_OPEN: 0, OPEN: 0 };
  let turn = 0;

  async function checkOne(session: string): Promise<void> {
    const n = next.get(session)!;
    next.set(session, n + size);
    const calls = Array.from({ length: size }, (_, i) => benchCall(session, n + i));
    const answers =
      size === 1 || !checker.checkBatch
        ? [await checker.check(session, calls[0]!.request)]
        : await checker.checkBatch(session, calls.map((c) => c.request));
    answers.forEach((answer, i) => {
      states[answer.state] += 1;
      pending.push({ session, call: calls[i]!, step: answer.step });
    });
  }

  async function settle(): Promise<void> {
    const done = pending.splice(0);
    await Promise.all(done.map((p) => checker.complete(p.session, { id: p.call.request.id, step: p.step }, p.call.outcome)));
  }

  return {
    id: options.id,
    label: options.label,
    concurrency,
    states,
    op(lane) {
      const session = concurrency === 1 ? sessions[turn++ % sessions.length]! : sessions[lane % sessions.length]!;
      return checkOne(session);
    },
    afterBatch: settle,
    async prefill(calls) {
      for (let i = 0; i < calls; i++) {
        await Promise.all(sessions.map((s) => checkOne(s)));
        await settle();
      }
      states.CLOSED = states.HALF_OPEN = states.OPEN = 0;
    },
  };
}
