import { BoundedCache, type Verdict } from "../breaker/index.js";

/**
 * The verdicts the router obtained, keyed by session and call id. The nodes
 * after the router read them instead of a second store round trip; on a miss
 * (another worker ran the router, or the entry aged out) they re-check, which
 * is idempotent per call id.
 */
export class VerdictMemo {
  private readonly entries: BoundedCache<string, Verdict>;

  constructor(capacity = 2_048) {
    this.entries = new BoundedCache(capacity);
  }

  private key(sessionId: string, callId: string): string {
    return `${sessionId}\u0000${callId}`;
  }

  get(sessionId: string, callId: string): Verdict | undefined {
    return this.entries.get(this.key(sessionId, callId));
  }

  set(sessionId: string, verdict: Verdict): void {
    this.entries.set(this.key(sessionId, verdict.callId), verdict);
  }
}
