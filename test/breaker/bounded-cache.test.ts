import { describe, expect, it } from "vitest";
import { BoundedCache } from "../../breaker/index.js";

describe("BoundedCache", () => {
  it("keeps the last generation when a new one starts, and drops what is two generations old", () => {
    const cache = new BoundedCache<number, string>(2);
    cache.set(1, "a");
    cache.set(2, "b");
    cache.set(3, "c"); // {1, 2} is now the old generation
    expect([1, 2, 3].map((k) => cache.get(k))).toEqual(["a", "b", "c"]);
    for (let k = 10; k < 20; k++) cache.set(k, `v${k}`);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(19)).toBe("v19");
    expect(cache.get(18)).toBe("v18");
  });

  it("overwrites without aging and forgets deleted keys", () => {
    const cache = new BoundedCache<string, number>(1);
    cache.set("k", 1);
    cache.set("k", 2);
    expect(cache.get("k")).toBe(2);
    cache.delete("k");
    expect(cache.get("k")).toBeUndefined();
  });
});
