import type { BreakerStore, StoreEvent } from "../breaker/index.js";
import type { Redactor } from "../nodes/redact.js";

/** A repeat of the same kind of store event within this window adds no line. */
export const REPEAT_QUIET_MS = 60_000;

/**
 * Log the store's events (a fail mode answering while Redis is down, and
 * whatever else a store reports) to the server log, redacted, one line each.
 * A store reports an outage once when it starts and once when it ends; one
 * that reports every failed operation instead still gives one line a minute.
 * Returns the unsubscribe function (a no-op for stores without events).
 */
export function logStoreEvents(store: BreakerStore, redact: Redactor, log: (line: string) => void, now: () => number = Date.now): () => void {
  let last: { kind: string; at: number } | undefined;
  return (
    store.subscribe?.((event: StoreEvent) => {
      const kind = `${event.type}:${event.operation}`;
      const at = now();
      if (last?.kind === kind && at - last.at < REPEAT_QUIET_MS) return;
      last = { kind, at };
      const where = event.sessionId === undefined ? "" : " (a session's call)";
      log(redact.text(`[guarded-agent] breaker store ${event.type} on ${event.operation}${where}: ${event.error.message}`));
    }) ?? (() => {})
  );
}
