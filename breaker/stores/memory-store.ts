import { BoundedCache } from "../bounded-cache.js";
import { BreakerError } from "../errors.js";
import type { CallRecord, CircuitRecord, SessionSnapshot, ToolOutcome, UsageTotals } from "../types.js";
import { freshCircuit, noUsage, type BreakerStore, type NewCall, type RecordResult, type StoreLimits } from "./store.js";

/** Options of the in-process store. */
export interface MemoryStoreOptions {
  /**
   * Most sessions held. Beyond it the least recently used go, a generation
   * (half of this) at a time, which keeps every access O(1). Default 10,000.
   */
  maxSessions?: number;
  /** Clock in epoch ms; injectable so tests can move time. */
  clock?: () => number;
}

interface Session {
  circuit: CircuitRecord;
  window: CallRecord[];
  usage: UsageTotals;
  totalCalls: number;
  runStart: number;
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

  async record(sessionId: string, call: NewCall, limits: StoreLimits): Promise<RecordResult> {
    const now = this.clock();
    const session: Session = this.get(sessionId, now) ?? {
      circuit: freshCircuit(call.run),
      window: [],
      usage: noUsage(),
      totalCalls: 0,
      runStart: 1,
      expiresAt: 0,
    };
    const existing = session.window.findIndex((c) => c.id === call.id);
    if (existing >= 0) {
      this.touch(sessionId, session, now, limits);
      return this.result(session, now, existing, true);
    }
    if (call.run !== session.circuit.run) {
      session.circuit = { ...freshCircuit(call.run), asOf: session.totalCalls };
      session.runStart = session.totalCalls + 1;
    }
    session.totalCalls += 1;
    const { usage, ...fields } = call;
    session.window.push({ ...fields, step: session.totalCalls, at: now });
    if (session.window.length > limits.maxEntries) session.window.splice(0, session.window.length - limits.maxEntries);
    if (usage) {
      session.usage = {
        inputTokens: session.usage.inputTokens + usage.inputTokens,
        outputTokens: session.usage.outputTokens + usage.outputTokens,
        costMicros: session.usage.costMicros + usage.costMicros,
      };
    }
    this.touch(sessionId, session, now, limits);
    return this.result(session, now, session.window.length - 1, false);
  }

  private result(session: Session, now: number, index: number, duplicate: boolean): RecordResult {
    // Copies, so callers never share mutable state with the store.
    const window = session.window.slice(0, index + 1).map((c) => ({ ...c }));
    return {
      now,
      record: window[index]!,
      window,
      duplicate,
      circuit: { ...session.circuit },
      usage: { ...session.usage },
      totalCalls: session.totalCalls,
      runCalls: session.totalCalls - session.runStart + 1,
    };
  }

  async complete(sessionId: string, callId: string, outcome: ToolOutcome, limits: StoreLimits): Promise<boolean> {
    const now = this.clock();
    const session = this.get(sessionId, now);
    const call = session?.window.find((c) => c.id === callId);
    if (!session || !call) return false;
    call.outcome = { ...outcome };
    this.touch(sessionId, session, now, limits);
    return true;
  }

  async transition(sessionId: string, circuit: CircuitRecord, limits: StoreLimits): Promise<void> {
    const now = this.clock();
    const session = this.get(sessionId, now);
    if (!session || circuit.run !== session.circuit.run || circuit.asOf < session.circuit.asOf) return;
    session.circuit = { ...circuit, findings: [...circuit.findings] };
    this.touch(sessionId, session, now, limits);
  }

  async snapshot(sessionId: string): Promise<SessionSnapshot | null> {
    const session = this.get(sessionId, this.clock());
    if (!session) return null;
    return {
      sessionId,
      circuit: { ...session.circuit },
      window: session.window.map((c) => ({ ...c })),
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
