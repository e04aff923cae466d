import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore, RedisStore, type StoreEvent } from "../../breaker/index.js";
import { logStoreEvents, REPEAT_QUIET_MS } from "../../graphs/outage-log.js";
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

const fallback = (operation: string, message = "connect ECONNREFUSED"): StoreEvent => ({ type: "fallback", operation, sessionId: "s", error: new Error(message) });

describe("the server log of store events", () => {
  it("writes one line per type of event, not one per call, and one again after the quiet window", () => {
    const store = new ReportingStore();
    const lines: string[] = [];
    let now = 0;
    logStoreEvents(store, createRedactor({}), (line) => lines.push(line), () => now);
    for (let i = 0; i < 50; i++) store.report(fallback(i % 2 ? "complete" : "record"));
    expect(lines).toEqual(["[guarded-agent] breaker store fallback on record (a session's call): connect ECONNREFUSED"]);
    store.report({ ...fallback("record"), type: "recovered" as StoreEvent["type"] });
    expect(lines).toHaveLength(2);
    now += REPEAT_QUIET_MS;
    store.report(fallback("complete"));
    expect(lines).toHaveLength(3);
  });

  it("masks secrets the store's error carries", () => {
    const store = new ReportingStore();
    const lines: string[] = [];
    logStoreEvents(store, createRedactor({}), (line) => lines.push(line));
    store.report(fallback("record", "Redis at redis://app:pa55word-x@cache:6379 failed"));
    expect(lines[0]).toContain("redis://app:***@cache:6379");
    expect(lines.join()).not.toContain("pa55word-x");
  });
});

describe("a graph whose Redis is down", () => {
  const stores: RedisStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  it("logs the outage once for a whole run, without the password, while the fail mode serves every call", async () => {
    const store = RedisStore.fromUrl(`redis://:down-S3CRET-pw@127.0.0.1:${await freePort()}`, { failMode: "open", commandTimeoutMs: 200, connectTimeoutMs: 200 });
    stores.push(store);
    const lines: string[] = [];
    const turns = Array.from({ length: 4 }, (_, n) => callsTurn({ name: "query_crm", args: { company_name: ["Acme Corp", "Globex", "Initech", "Umbrella"][n]! } }));
    const { graph } = testGraph({ store, model: new ReplayChatModel(turns), log: (line) => lines.push(line) });
    const { state } = await runTurn(graph, "Look them up.", { thread: "outage" });
    expect(state.halted).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[guarded-agent\] breaker store fallback on record \(a session's call\): Redis at redis:\/\/:\*\*\*@127\.0\.0\.1/);
    expect(lines.every((l) => l.startsWith("[guarded-agent] breaker store"))).toBe(true);
    expect(lines.join("\n")).not.toContain("down-S3CRET-pw");
  });
});
