import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore, RedisStore, type StoreEvent } from "../../breaker/index.js";
import { logStoreEvents } from "../../graphs/outage-log.js";
import { createRedactor } from "../../nodes/redact.js";
import { ReplayChatModel, callsTurn, runTurn, testGraph } from "../support/graph-helpers.js";
import { freePort } from "../support/redis-server.js";

/** A MemoryStore that lets a test send the events a store reports. */
class ReportingStore extends MemoryStore {
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  report(event: StoreEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

const error = (message = "connect ECONNREFUSED") => new Error(message);

describe("the server log of store outages", () => {
  it("writes one line when an outage starts and one when it ends, none per failed call", () => {
    const store = new ReportingStore();
    const lines: string[] = [];
    logStoreEvents(store, createRedactor({}), (line) => lines.push(line));
    store.report({ type: "outage", operation: "recordBatch", error: error(), failMode: "open" });
    for (let i = 0; i < 50; i++) store.report({ type: "fallback", operation: i % 2 ? "complete" : "recordBatch", sessionId: "s", error: error() });
    store.report({ type: "recovered", operation: "recordBatch", downMs: 1234, failedOperations: 50 });
    expect(lines).toEqual([
      "[guarded-agent] breaker store down (recordBatch failed: connect ECONNREFUSED); fail mode open: calls are judged from this process's memory until it recovers.",
      "[guarded-agent] breaker store recovered after 1234 ms; 50 operations were answered by the fail mode.",
    ]);
  });

  it("masks secrets the store's error carries", () => {
    const store = new ReportingStore();
    const lines: string[] = [];
    logStoreEvents(store, createRedactor({}), (line) => lines.push(line));
    store.report({ type: "outage", operation: "recordBatch", error: error("Redis at redis://app:pa55word-x@cache:6379 failed"), failMode: "closed" });
    expect(lines[0]).toContain("redis://app:***@cache:6379");
    expect(lines[0]).toContain("calls are refused");
    expect(lines.join()).not.toContain("pa55word-x");
  });
});

describe("a graph whose Redis is down", () => {
  const stores: RedisStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  it("logs the outage once for a whole run, without the password, shows it in every verdict, and the fail mode serves every call", async () => {
    const store = RedisStore.fromUrl(`redis://:down-S3CRET-pw@127.0.0.1:${await freePort()}`, { failMode: "open", commandTimeoutMs: 200, connectTimeoutMs: 200 });
    stores.push(store);
    const lines: string[] = [];
    const turns = Array.from({ length: 4 }, (_, n) => callsTurn({ name: "query_crm", args: { company_name: ["Acme Corp", "Globex", "Initech", "Umbrella"][n]! } }));
    const { graph } = testGraph({ store, model: new ReplayChatModel(turns), log: (line) => lines.push(line) });
    const { state } = await runTurn(graph, "Look them up.", { thread: "outage" });
    expect(state.halted).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[guarded-agent\] breaker store down \(.*redis:\/\/:\*\*\*@127\.0\.0\.1/);
    expect(lines.join("\n")).not.toContain("down-S3CRET-pw");
    expect(state.verdicts.every((v) => v.degraded !== undefined)).toBe(true);
    expect(JSON.stringify(state)).not.toContain("down-S3CRET-pw");
  });
});
