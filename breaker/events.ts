import type { Verdict } from "./types.js";

/** Events a breaker emits, for logs and metrics (names follow opossum's). */
export interface BreakerEvents {
  /** A call tripped the circuit. */
  open: { sessionId: string; verdict: Verdict };
  /** A call was admitted with a warning. */
  halfOpen: { sessionId: string; verdict: Verdict };
  /** The circuit went back to CLOSED (calls made progress, or OPEN expired). */
  close: { sessionId: string; step: number };
  /** A call was refused. */
  reject: { sessionId: string; verdict: Verdict };
  /**
   * The store failed; `action` says what was done about it: the call was
   * blocked, the failure ignored, or the store fell back to process memory.
   */
  storeError: { sessionId: string; error: Error; action: "blocked" | "ignored" | "fallback" };
  /**
   * The store's backend became unavailable (first failure after a healthy
   * spell): once per outage, however many calls it affects. Until
   * `storeRecovered`, verdicts carry `degraded`.
   */
  storeOutage: { operation: string; error: Error; failMode: "open" | "closed" };
  /** The store's backend answered again after an outage; `downMs` from its first failure. */
  storeRecovered: { operation: string; downMs: number; failedOperations: number };
}

export type BreakerEventName = keyof BreakerEvents;
export type BreakerListener<K extends BreakerEventName> = (event: BreakerEvents[K]) => void;

/** A tiny typed emitter whose listeners can never break the breaker by throwing. */
export class BreakerEmitter {
  private readonly listeners = new Map<BreakerEventName, Set<(event: never) => void>>();

  /** Subscribe; returns a function that unsubscribes. */
  on<K extends BreakerEventName>(name: K, listener: BreakerListener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as (event: never) => void);
    return () => set.delete(listener as (event: never) => void);
  }

  /** How many listeners an event has. */
  listenerCount(name: BreakerEventName): number {
    return this.listeners.get(name)?.size ?? 0;
  }

  emit<K extends BreakerEventName>(name: K, event: BreakerEvents[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as BreakerListener<K>)(event);
      } catch {
        // A broken log sink must not change what the breaker decides.
      }
    }
  }
}
