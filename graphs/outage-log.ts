import type { BreakerStore, StoreEvent } from "../breaker/index.js";
import type { Redactor } from "../nodes/redact.js";

/** Another event of the same type within this window adds no line. */
export const REPEAT_QUIET_MS = 60_000;

/**
 * Log the store's events (a fail mode answering while Redis is down, and
 * whatever else a store reports) to the server log, redacted, one line each.
 * A store reports an outage once when it starts and once when it ends (two
 * types of event); one that reports every failed operation instead still
 * gives one line a minute per type.
 * Returns the unsubscribe function (a no-op for stores without events).
 */
export function logStoreEvents(store: BreakerStore, redact: Redactor, log: (line: string) => void, now: () => number = Date.now): () => void {
  // Event types are the store's own few words, so this map stays small.
  const lastLogged = new Map<string, number>();
  return (
    store.subscribe?.((event: StoreEvent) => {
      const at = now();
      const last = lastLogged.get(event.type);
      if (last !== undefined && at - last < REPEAT_QUIET_MS) return;
      lastLogged.set(event.type, at);
      const where = event.sessionId === undefined ? "" : " (a session's call)";
      log(redact.text(`[guarded-agent] breaker store ${event.type} on ${event.operation}${where}: ${event.error.message}`));
    }) ?? (() => {})
  );
}
