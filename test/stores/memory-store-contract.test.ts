import { describe } from "vitest";
import { MemoryStore } from "../../breaker/stores/memory-store.js";
import { storeContract } from "./store-contract.js";

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
