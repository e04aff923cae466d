import type { BreakerStore, StoreEvent } from "../breaker/index.js";
import type { Redactor } from "../nodes/redact.js";

/** The server log's line for a store event, or undefined for one that gets none. */
export function outageLine(event: StoreEvent): string | undefined {
  switch (event.type) {
    case "outage":
      return `[guarded-agent] breaker store down (${event.operation} failed: ${event.error.message}); fail mode ${event.failMode}: ${
        event.failMode === "open" ? "calls are judged from this process's memory" : "calls are refused"
      } until it recovers.`;
    case "recovered":
      return `[guarded-agent] breaker store recovered after ${event.downMs} ms; ${event.failedOperations} operations were answered by the fail mode.`;
    default:
      // One per failed operation: the outage's own line already says it.
      return undefined;
  }
}

/**
 * Log a store's outages to the server log, redacted: the store reports each
 * outage once when it starts and once when it ends, so a run of a thousand
 * calls during one outage writes two lines, not a thousand. Returns the
 * unsubscribe function (a no-op for stores without events).
 */
export function logStoreEvents(store: BreakerStore, redact: Redactor, log: (line: string) => void): () => void {
  return (
    store.subscribe?.((event: StoreEvent) => {
      const line = outageLine(event);
      if (line !== undefined) log(redact.text(line));
    }) ?? (() => {})
  );
}
