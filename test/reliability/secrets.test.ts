import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createBreaker, RedisStore, type BreakerStore, type RedisFailMode } from "../../breaker/index.js";
import { runContext } from "../../graphs/context.js";
import { buildGraph } from "../../graphs/graph.js";
import { createStoreFromEnv } from "../../graphs/store-from-env.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { ReplayChatModel, callsTurn } from "../support/graph-helpers.js";
import { loopingSqlScript } from "../support/openai-scripts.js";
import { describeRedis, freePort, startRedisServer, type RedisServer } from "../support/redis-server.js";
import { captureOutput, renderings, type OutputCapture } from "./support/capture-output.js";

const API_KEY = "sk-reliability-S3CRET-4f9a7c2e1b";
const REDIS_PASSWORD = "rp-S3CRET-8d1e";
// URL-special characters, so both the encoded and the decoded form must stay out of every message.
const ODD_PASSWORD = "p@ss:w/rd%S3CRET#1";

let output: OutputCapture | undefined;
afterEach(() => {
  output?.restore();
  output = undefined;
});

/** Fail if any secret shows up in any rendering of any value, or in what the process printed. */
function expectNoSecret(secrets: string[], values: Record<string, unknown>): void {
  const printed = output?.text() ?? "";
  for (const secret of secrets) {
    for (const [what, value] of Object.entries(values)) {
      expect(renderings(value).includes(secret), `${what} contains a secret`).toBe(false);
    }
    expect(printed.includes(secret), "console/stdout/stderr contains a secret").toBe(false);
  }
}

/** Run a turn and keep every stream event of every mode, the final state and the run's error. */
async function runAndRecord(graph: ReturnType<typeof buildGraph>, context: Record<string, unknown>, thread: string) {
  const events: unknown[] = [];
  let error: unknown;
  try {
    const stream = await graph.stream(
      { messages: [new HumanMessage("How many invoices are overdue?")] },
      { context: runContext(context), configurable: { thread_id: thread }, streamMode: ["values", "updates", "messages", "custom", "debug"], recursionLimit: 60 },
    );
    for await (const event of stream) events.push(event);
  } catch (e) {
    error = e;
  }
  const state = error === undefined ? (await graph.getState({ configurable: { thread_id: thread } })).values : undefined;
  return { events, state, error };
}

describe("the OpenAI API key stays out of logs, errors, stream events and graph state", () => {
  let fake: FakeOpenAIServer;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: API_KEY, script: loopingSqlScript });
  });
  afterAll(async () => {
    await fake.close();
  });

  it("through a whole looping run with the real ChatOpenAI client", async () => {
    output = captureOutput();
    const saver = new MemorySaver();
    const graph = buildGraph({ env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: fake.baseURL }, checkpointer: saver });
    const { events, state, error } = await runAndRecord(graph, { model: "openai:gpt-4o-mini" }, "secret-thread");
    expect(error).toBeUndefined();
    expect((state as { halted: boolean }).halted).toBe(true);
    // The key really was in use: the server saw it on every request.
    expect(fake.requests.length).toBeGreaterThan(1);
    expect(fake.requests.every((r) => r.authorization === `Bearer ${API_KEY}`)).toBe(true);

    const streamEvents: unknown[] = [];
    for await (const event of graph.streamEvents(
      { messages: [new HumanMessage("Again, please.")] },
      { version: "v2", context: runContext({ model: "openai:gpt-4o-mini" }), configurable: { thread_id: "secret-thread-2" }, recursionLimit: 60 },
    )) {
      streamEvents.push(event);
    }
    expect(streamEvents.length).toBeGreaterThan(0);
    expectNoSecret([API_KEY], { events, state, streamEvents, checkpoints: saver.storage });
  });

  it("in the error of a run whose key the server refuses", async () => {
    output = captureOutput();
    const wrongKey = `${API_KEY}-revoked`;
    const graph = buildGraph({ env: { OPENAI_API_KEY: wrongKey, OPENAI_BASE_URL: fake.baseURL } });
    const { error, events } = await runAndRecord(graph, { model: "openai:gpt-4o-mini" }, "secret-thread-3");
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/401|API key/i);
    // A graph built with another key uses that key, not a cached client holding the first one.
    expect(fake.requests.at(-1)?.authorization).toBe(`Bearer ${wrongKey}`);
    expectNoSecret([wrongKey, API_KEY], { error, events });
  });

  it("in the error of a run whose upstream echoes the whole key back", async () => {
    const echoing = await startFakeOpenAI({ apiKey: API_KEY, script: loopingSqlScript, echoKeyOnAuthError: true });
    try {
      output = captureOutput();
      const wrongKey = `${API_KEY}-echoed`;
      const graph = buildGraph({ env: { OPENAI_API_KEY: wrongKey, OPENAI_BASE_URL: echoing.baseURL } });
      const { error, events } = await runAndRecord(graph, { model: "openai:gpt-4o-mini" }, "secret-thread-4");
      // The upstream did put the key in its answer; the graph's error must not carry it on.
      expect(String((error as Error).message)).toMatch(/Incorrect API key provided: \*\*\*/);
      expectNoSecret([wrongKey, API_KEY], { error, events });
    } finally {
      await echoing.close();
    }
  });
});

describeRedis("the Redis password stays out of errors, events, logs and graph state", "binary", () => {
  let server: RedisServer;
  let oddServer: RedisServer;
  let deadPort: number;
  const stores: BreakerStore[] = [];
  const secrets = [REDIS_PASSWORD, ODD_PASSWORD, encodeURIComponent(ODD_PASSWORD)];

  beforeAll(async () => {
    server = await startRedisServer({ args: ["--requirepass", REDIS_PASSWORD] });
    oddServer = await startRedisServer({ args: ["--requirepass", ODD_PASSWORD] });
    deadPort = await freePort();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close?.()));
    await Promise.all([server?.stop(), oddServer?.stop()]);
  });

  const badUrls = (): [string, string][] => [
    ["a wrong password", `redis://:WRONG-${REDIS_PASSWORD}@127.0.0.1:${server.port}`],
    ["a wrong user and password", `redis://someone:${REDIS_PASSWORD}@127.0.0.1:${server.port}`],
    ["a wrong URL-encoded password", `redis://:${encodeURIComponent(ODD_PASSWORD)}x@127.0.0.1:${oddServer.port}`],
    ["a password in the query string", `redis://127.0.0.1:${server.port}/?password=WRONG-${REDIS_PASSWORD}`],
    ["an unreachable host", `redis://:${REDIS_PASSWORD}@127.0.0.1:${deadPort}`],
  ];

  for (const failMode of ["closed", "open"] as RedisFailMode[]) {
    it(`with failMode ${failMode}: verdicts, thrown errors, store and breaker events for bad URLs`, async () => {
      output = captureOutput();
      for (const [what, url] of badUrls()) {
        const seen: unknown[] = [];
        const store = RedisStore.fromUrl(url, { failMode, commandTimeoutMs: 300, connectTimeoutMs: 500, onEvent: (e) => seen.push(e) });
        stores.push(store);
        const breaker = createBreaker({ store });
        breaker.on("storeError", (e) => seen.push(e));
        const verdict = await breaker.check("s1", { id: "c1", name: "lookup", args: { q: 1 } });
        let thrown: unknown;
        try {
          await store.snapshot("s1");
        } catch (error) {
          thrown = error;
        }
        // The failure path really ran: closed refuses with the store's error, open falls back and says so.
        if (failMode === "closed") {
          expect(verdict.state, what).toBe("OPEN");
          expect(verdict.findings[0]?.detector).toBe("store_unavailable");
          expect((thrown as Error)?.message, what).toMatch(/^Redis at .* failed on snapshot/);
        } else {
          expect(verdict.allowed, what).toBe(true);
          expect(seen.length, what).toBeGreaterThan(0);
        }
        expectNoSecret(secrets, { what, verdict, thrown, seen });
        await store.close();
      }
    });
  }

  it("connects with a URL-encoded password and leaves it out of the store's view of itself", async () => {
    const store = RedisStore.fromUrl(`redis://:${encodeURIComponent(ODD_PASSWORD)}@127.0.0.1:${oddServer.port}`, { failMode: "closed" });
    stores.push(store);
    const breaker = createBreaker({ store });
    const verdict = await breaker.check("s1", { id: "c1", name: "lookup", args: {} });
    expect(verdict.state).toBe("CLOSED");
    expect((await breaker.inspect("s1")).totalCalls).toBe(1);
    expectNoSecret(secrets, { verdict, snapshot: await breaker.inspect("s1") });
    await store.close();
  });

  for (const failMode of ["closed", "open"] as RedisFailMode[]) {
    it(`keeps it out of a whole graph run built from REDIS_URL (failMode ${failMode})`, async () => {
      output = captureOutput();
      const store = createStoreFromEnv({ REDIS_URL: `redis://:WRONG-${REDIS_PASSWORD}@127.0.0.1:${server.port}`, BREAKER_FAIL_MODE: failMode });
      stores.push(store);
      const model = new ReplayChatModel([callsTurn({ name: "query_crm", args: { company_name: "Acme Corp" } })]);
      const graph = buildGraph({ model, store, checkpointer: new MemorySaver() });
      const { events, state, error } = await runAndRecord(graph, {}, `redis-secret-${failMode}`);
      expect(error).toBeUndefined();
      // closed refuses every call (store unavailable); open runs on the in-process fallback.
      expect((state as { halted: boolean }).halted).toBe(failMode === "closed");
      // In closed mode the store's (redacted) error did reach the state: the check below is not vacuous.
      if (failMode === "closed") expect(renderings(state)).toMatch(/store_unavailable[\s\S]*Redis at redis:\/\/:\*\*\*@/);
      expectNoSecret(secrets, { events, state });
      await store.close?.();
    });
  }
});
