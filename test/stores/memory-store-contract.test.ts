import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../breaker/stores/memory-store.js";
import { newCall, storeContract } from "./store-contract.js";

describe("MemoryStore: store contract", () => {
  // One fake clock per test file: elapse() moves it, so expiry needs no waiting.
  let now = Date.parse("2026-01-01T00:00:00Z");
  storeContract({
    create: () => new MemoryStore({ clock: () => now }),
    elapse: async (ms) => {
      now += ms;
    },
  });
});

describe("MemoryStore: bounded in sessions", () => {
  const limits = { maxEntries: 50, ttlSeconds: 60 };

  it("holds at most maxSessions, dropping the least recently used first", async () => {
    const store = new MemoryStore({ maxSessions: 4 });
    await store.record("keep", newCall("k1"), limits);
    for (let i = 0; i < 20; i++) {
      await store.record(`s${i}`, newCall("c"), limits);
      // Used again and again: never the least recently used.
      await store.record("keep", newCall(`k${i + 2}`), limits);
      expect(store.size).toBeLessThanOrEqual(4);
    }
    const held = await store.sessions();
    expect(held).toContain("keep");
    expect(held).toContain("s19");
    expect(held).not.toContain("s0");
    expect((await store.snapshot("keep"))!.totalCalls).toBe(21);
  });

  it("refuses a bound it cannot keep", () => {
    expect(() => new MemoryStore({ maxSessions: 1 })).toThrow(/maxSessions must be an integer of at least 2/);
  });
});
