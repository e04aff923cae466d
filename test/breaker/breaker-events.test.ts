import { describe, expect, it } from "vitest";
import { createBreaker, MemoryStore, type BreakerEvents, type StoreEvent } from "../../breaker/index.js";

/** A MemoryStore that can report degradation events like a RedisStore does. */
class EventfulStore extends MemoryStore {
  readonly listeners = new Set<(event: StoreEvent) => void>();
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  report(event: StoreEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

describe("breaker events", () => {
  it("emits open and reject when a call trips, halfOpen on the warning, close when the run starts over", async () => {
    const breaker = createBreaker();
    const seen: string[] = [];
    for (const name of ["open", "halfOpen", "close", "reject"] as const) breaker.on(name, () => seen.push(name));
    // The same answer: the third call warns (two repeats with nothing new), the fourth is refused.
    for (let i = 1; i <= 4; i++) {
      const verdict = await breaker.check("s", { id: `c${i}`, name: "poll", args: { a: 1 } });
      if (verdict.allowed) await breaker.complete("s", `c${i}`, { output: "same" });
    }
    expect(seen).toEqual(["halfOpen", "open", "reject"]);
  });

  it("forwards store degradation as storeError only while someone listens, and never throws from a listener", async () => {
    const store = new EventfulStore();
    const breaker = createBreaker({ store });
    expect(store.listeners.size).toBe(0);
    const received: BreakerEvents["storeError"][] = [];
    const offThrowing = breaker.on("storeError", () => {
      throw new Error("a broken log sink");
    });
    const off = breaker.on("storeError", (e) => received.push(e));
    expect(store.listeners.size).toBe(1);
    store.report({ type: "fallback", operation: "record", sessionId: "s", error: new Error("redis down") });
    expect(received.map((e) => [e.sessionId, e.action, e.error.message])).toEqual([["s", "fallback", "redis down"]]);
    offThrowing();
    expect(store.listeners.size).toBe(1);
    off();
    expect(store.listeners.size).toBe(0);
  });
});
