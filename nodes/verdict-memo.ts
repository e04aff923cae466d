import type { Verdict } from "../breaker/index.js";

/**
 * A small LRU of the verdicts the router obtained, keyed by session and call
 * id. The nodes after the router read it instead of a second store round trip;
 * on a miss (another worker ran the router) they re-check, which is
 * idempotent per call id.
 */
export class VerdictMemo {
  private readonly entries = new Map<string, Verdict>();

  constructor(private readonly capacity = 2_048) {}

  private key(sessionId: string, callId: string): string {
    return `${sessionId}\u0000${callId}`;
  }

  get(sessionId: string, callId: string): Verdict | undefined {
    return this.entries.get(this.key(sessionId, callId));
  }

  set(sessionId: string, verdict: Verdict): void {
    const key = this.key(sessionId, verdict.callId);
    this.entries.delete(key);
    this.entries.set(key, verdict);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}
