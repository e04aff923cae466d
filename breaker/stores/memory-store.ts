import { randomUUID } from "node:crypto";
import { BoundedCache } from "../bounded-cache.js";
import { BreakerError } from "../errors.js";
import type { CallRecord, CircuitRecord, SessionSnapshot, ToolOutcome, UsageTotals } from "../types.js";
import {
  copyCall,
  freshCircuit,
  keepFrom,
  noUsage,
  recordResultOf,
  reportCap,
  windowSizeOf,
  type BatchRecord,
  type BreakerStore,
  type CircuitClaim,
  type Completion,
  type NewCall,
  type OutcomeReport,
  type RecordResult,
  type StoreLimits,
  type TransitionPosition,
} from "./store.js";

/** Options of the in-process store. */
export interface MemoryStoreOptions {
  /**
   * Most sessions held. Beyond it the least recently used go, a generation
   * (half of this) at a time, which keeps every access O(1). Default 10,000.
   */
  maxSessions?: number;
  /** Clock in epoch ms. Default Date.now; the offline evaluator runs its store on a trajectory's own times. */
  clock?: () => number;
}

interface Session {
  epoch: string;
  circuit: CircuitRecord;
  /** The circuit holds every verdict through this step. */
  decided: number;
  /** Retained calls, consecutive steps; each object is replaced, never changed, when its outcome arrives. */
  calls: CallRecord[];
  reports: OutcomeReport[];
  usage: UsageTotals;
  totalCalls: number;
  runStart: number;
  /** The window size the last record was given: what snapshots and completes see. */
  windowSize: number;
  expiresAt: number;
}

/**
 * The embedded default store: one process, bounded in sessions and window
 * size. Every method runs to completion without awaiting, so each is atomic
 * with respect to other calls in the process.
 */
export class MemoryStore implements BreakerStore {
  private readonly sessionsById: BoundedCache<string, Session>;
  private readonly clock: () => number;
  // Epochs unique to this store, so a claim made against another store (or a
  // Redis store's fallback of an earlier outage) never matches.
  private readonly epochPrefix = randomUUID().slice(0, 8);
  private epochs = 0;

  constructor(options: MemoryStoreOptions = {}) {
    const maxSessions = options.maxSessions ?? 10_000;
    if (!Number.isInteger(maxSessions) || maxSessions < 2) {
      throw new BreakerError("INVALID_STORE_OPTIONS", `maxSessions must be an integer of at least 2 (got ${maxSessions}).`);
    }
    this.sessionsById = new BoundedCache(Math.ceil(maxSessions / 2));
    this.clock = options.clock ?? Date.now;
  }

  /** Number of sessions held (expired ones may linger until touched or evicted). */
  get size(): number {
    return this.sessionsById.size;
  }

  /** Forget every session (a Redis store's fallback, once Redis is back). */
  clear(): void {
    for (const [id] of [...this.sessionsById.entries()]) this.sessionsById.delete(id);
  }

  // Fetch a live session (marking it recently used); an expired one is dropped.
  private get(sessionId: string, now: number): Session | undefined {
    const session = this.sessionsById.get(sessionId);
    if (session && session.expiresAt <= now) {
      this.sessionsById.delete(sessionId);
      return undefined;
    }
    return session;
  }

  private touch(sessionId: string, session: Session, now: number, limits: StoreLimits): void {
    session.expiresAt = now + limits.ttlSeconds * 1_000;
    this.sessionsById.set(sessionId, session);
  }

  private applyClaim(session: Session, claim: CircuitClaim | undefined): void {
    if (
      claim &&
      claim.epoch === session.epoch &&
      claim.run === session.circuit.run &&
      claim.asOf === session.circuit.asOf &&
      claim.through > session.decided &&
      claim.through <= session.totalCalls
    ) {
      session.decided = claim.through;
    }
  }

  // Index in `calls` of a call id among the window's calls, or -1.
  private findVisible(session: Session, callId: string, windowSize: number): number {
    const first = session.calls[0]?.step ?? 1;
    const from = Math.max(0, session.totalCalls - windowSize + 1 - first);
    for (let i = session.calls.length - 1; i >= from; i--) if (session.calls[i]!.id === callId) return i;
    return -1;
  }

  async recordBatch(sessionId: string, calls: readonly NewCall[], limits: StoreLimits, claim?: CircuitClaim): Promise<BatchRecord> {
    const now = this.clock();
    const windowSize = windowSizeOf(limits);
    const session: Session = this.get(sessionId, now) ?? {
      epoch: `${this.epochPrefix}.${++this.epochs}`,
      circuit: freshCircuit(calls[0]?.run ?? ""),
      decided: 0,
      calls: [],
      reports: [],
      usage: noUsage(),
      totalCalls: 0,
      runStart: 1,
      windowSize,
      expiresAt: 0,
    };
    this.applyClaim(session, claim);
    session.windowSize = windowSize;
    const steps: BatchRecord["steps"] = [];
    for (const call of calls) {
      const existing = this.findVisible(session, call.id, windowSize);
      if (existing >= 0) {
        steps.push({ step: session.calls[existing]!.step, duplicate: true });
        continue;
      }
      if (call.run !== session.circuit.run) {
        session.circuit = { ...freshCircuit(call.run), asOf: session.totalCalls };
        session.runStart = session.totalCalls + 1;
        session.decided = session.totalCalls;
      }
      session.totalCalls += 1;
      // A spread, not a rest pattern (which copies through V8's slow path); the usage is replaced by a copy.
      const record: CallRecord = { ...call, step: session.totalCalls, at: now };
      const usage = call.usage;
      if (usage) {
        record.usage = { ...usage };
        session.usage = {
          inputTokens: session.usage.inputTokens + usage.inputTokens,
          outputTokens: session.usage.outputTokens + usage.outputTokens,
          costMicros: session.usage.costMicros + usage.costMicros,
        };
      }
      session.calls.push(record);
      steps.push({ step: session.totalCalls, duplicate: false });
    }
    // Answered before the trim: the batch's own calls need their whole windows.
    const result: BatchRecord = {
      now,
      epoch: session.epoch,
      steps,
      calls: session.calls.slice(),
      reports: session.reports.slice(),
      circuit: { ...session.circuit },
      decided: session.decided,
      usage: { ...session.usage },
      totalCalls: session.totalCalls,
      runStart: session.runStart,
    };
    const first = session.calls[0]?.step ?? 1;
    const drop = keepFrom(session.totalCalls, session.decided, windowSize) - first;
    if (drop > 0) session.calls.splice(0, drop);
    this.touch(sessionId, session, now, limits);
    return result;
  }

  async record(sessionId: string, call: NewCall, limits: StoreLimits): Promise<RecordResult> {
    return recordResultOf(await this.recordBatch(sessionId, [call], limits), limits);
  }

  async completeBatch(sessionId: string, completions: readonly Completion[], limits: StoreLimits, claim?: CircuitClaim): Promise<boolean[]> {
    const now = this.clock();
    const session = this.get(sessionId, now);
    if (!session) return completions.map(() => false);
    this.applyClaim(session, claim);
    const windowSize = windowSizeOf(limits);
    const applied = completions.map(({ callId, outcome }) => {
      const index = this.findVisible(session, callId, windowSize);
      if (index < 0) return false;
      const call = session.calls[index]!;
      // One copy for the record and the report: stored outcomes are replaced, never changed.
      const stored = { ...outcome };
      session.calls[index] = { ...call, outcome: stored };
      session.reports.push({ step: call.step, seq: session.totalCalls, outcome: stored });
      return true;
    });
    const added = applied.filter(Boolean).length;
    if (added > 0) {
      const excess = session.reports.length - reportCap(windowSize);
      if (excess > 0) session.reports.splice(0, excess);
      // As the Redis log does: reports of calls no longer held go from the head, a few at most.
      const first = session.calls[0]?.step ?? 1;
      let stale = 0;
      while (stale < added + 2 && stale < session.reports.length && session.reports[stale]!.step < first) stale++;
      if (stale > 0) session.reports.splice(0, stale);
    }
    if (applied.some(Boolean) || claim) this.touch(sessionId, session, now, limits);
    return applied;
  }

  async complete(sessionId: string, callId: string, outcome: ToolOutcome, limits: StoreLimits): Promise<boolean> {
    const [applied] = await this.completeBatch(sessionId, [{ callId, outcome }], limits);
    return applied!;
  }

  async transition(sessionId: string, circuit: CircuitRecord, limits: StoreLimits, position?: TransitionPosition): Promise<void> {
    const now = this.clock();
    const session = this.get(sessionId, now);
    const through = position?.through ?? circuit.asOf;
    if (
      !session ||
      circuit.run !== session.circuit.run ||
      (position && position.epoch !== session.epoch) ||
      circuit.asOf < session.circuit.asOf ||
      through < session.decided ||
      through > session.totalCalls
    ) {
      return;
    }
    session.circuit = { ...circuit, findings: [...circuit.findings] };
    session.decided = through;
    this.touch(sessionId, session, now, limits);
  }

  async snapshot(sessionId: string): Promise<SessionSnapshot | null> {
    const session = this.get(sessionId, this.clock());
    if (!session) return null;
    const visible = session.calls.slice(-session.windowSize);
    return {
      sessionId,
      circuit: { ...session.circuit, findings: [...session.circuit.findings] },
      window: visible.map((c) => copyCall(c)),
      usage: { ...session.usage },
      totalCalls: session.totalCalls,
      runCalls: session.totalCalls - session.runStart + 1,
    };
  }

  async reset(sessionId: string): Promise<void> {
    this.sessionsById.delete(sessionId);
  }

  async sessions(): Promise<string[]> {
    const now = this.clock();
    return [...this.sessionsById.entries()].filter(([, s]) => s.expiresAt > now).map(([id]) => id);
  }
}
