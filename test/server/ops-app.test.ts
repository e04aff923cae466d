import { metrics } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { createBreaker, MemoryStore, RedisStore, type SessionSnapshot } from "../../breaker/index.js";
import { ADMIN_TOKEN_VAR, adminTokenFromEnv, AdminTokenError } from "../../server/admin-token.js";
import { bearerMatches } from "../../server/bearer-auth.js";
import { createOpsApp } from "../../server/ops-app.js";
import { parseSessionParam } from "../../server/session-param.js";
import { PROMETHEUS_CONTENT_TYPE, registerPrometheusMetrics } from "../../server/prometheus-metrics.js";

const TOKEN = "ops-token-0123456789abcdef";
const auth = { Authorization: `Bearer ${TOKEN}` };

// The app registers the global MeterProvider, as it does on the server; this file's process gives it back.
const prometheus = registerPrometheusMetrics();
afterAll(() => metrics.disable());

/** A store holding one session whose circuit a loop opened, the breaker that opened it, and the ops app over that store. */
async function trippedSession(sessionId = "thread:ops-1") {
  const store = new MemoryStore();
  const breaker = createBreaker({ store });
  for (let i = 1; i <= 4; i++) {
    const [verdict] = await breaker.checkBatch(sessionId, [{ id: `c${i}`, name: "query_database", args: { sql: "SELECT 1" } }]);
    if (!verdict!.allowed) break;
    await breaker.completeBatch(sessionId, [{ callId: verdict!.callId, outcome: { error: "relation does not exist" } }]);
  }
  const app = createOpsApp({ token: TOKEN, store, metrics: prometheus });
  return { store, breaker, app, sessionId };
}

const path = (sessionId: string, suffix = "") => `/breaker/sessions/${encodeURIComponent(sessionId)}${suffix}`;

describe("the ops app", () => {
  it("has no routes without a token: every path is a 404", async () => {
    const app = createOpsApp({ token: undefined, store: new MemoryStore(), metrics: prometheus });
    for (const [method, url] of [["GET", "/metrics"], ["GET", path("thread:x")], ["POST", path("thread:x", "/reset")]] as const) {
      const response = await app.request(url, { method, headers: auth });
      expect(response.status, `${method} ${url}`).toBe(404);
    }
  });

  it.each([
    ["no Authorization header", {}],
    ["a wrong token", { Authorization: "Bearer ops-token-0123456789abcdeX" }],
    ["the token without the Bearer scheme", { Authorization: TOKEN }],
    ["a Basic credential", { Authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString("base64")}` }],
  ])("answers 401 to a request with %s, and touches nothing", async (_what, headers) => {
    const { app, store, sessionId } = await trippedSession();
    for (const [method, url] of [["GET", "/metrics"], ["GET", path(sessionId)], ["POST", path(sessionId, "/reset")]] as const) {
      const response = await app.request(url, { method, headers });
      expect(response.status, `${method} ${url}`).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ error: "UNAUTHORIZED" });
    }
    expect((await store.snapshot(sessionId))?.circuit.state).toBe("OPEN");
  });

  it("inspects a session: the circuit, its findings and the recent calls", async () => {
    const { app, sessionId } = await trippedSession();
    const response = await app.request(path(sessionId), { headers: auth });

    expect(response.status).toBe(200);
    const snapshot = (await response.json()) as SessionSnapshot;
    expect(snapshot.sessionId).toBe(sessionId);
    expect(snapshot.circuit.state).toBe("OPEN");
    expect(snapshot.circuit.findings[0]).toMatchObject({ detector: "identical_repeat", severity: "block" });
    expect(snapshot.window.map((c) => c.tool)).toEqual(["query_database", "query_database", "query_database"]);
  });

  it("resets a session: the next inspect finds nothing, and the next call is judged afresh", async () => {
    const { app, breaker, sessionId } = await trippedSession();
    const reset = await app.request(path(sessionId, "/reset"), { method: "POST", headers: auth });

    expect(reset.status).toBe(200);
    expect(await reset.json()).toEqual({ sessionId, existed: true, forgottenCalls: 3 });
    const after = await app.request(path(sessionId), { headers: auth });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ error: "SESSION_NOT_FOUND" });
    const [verdict] = await breaker.checkBatch(sessionId, [{ id: "c9", name: "query_database", args: { sql: "SELECT 1" } }]);
    expect(verdict).toMatchObject({ state: "CLOSED", allowed: true });
  });

  it("answers 503 when the store fails (a fail-closed Redis nobody listens on), and logs why", async () => {
    const store = new RedisStore({ url: "redis://127.0.0.1:1", failMode: "closed", connectTimeoutMs: 50, commandTimeoutMs: 100 });
    const lines: string[] = [];
    const app = createOpsApp({ token: TOKEN, store, metrics: prometheus, log: (line) => lines.push(line) });
    try {
      for (const [method, suffix] of [["GET", ""], ["POST", "/reset"]] as const) {
        const response = await app.request(path("thread:down", suffix), { method, headers: auth });
        expect(response.status).toBe(503);
        expect(await response.json()).toMatchObject({ error: "STORE_UNAVAILABLE" });
      }
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^\[guarded-agent\] GET \/breaker\/sessions\/thread%3Adown failed: .+/);
    } finally {
      await store.close();
    }
  });

  it("takes session ids with reserved characters when they are percent-encoded", async () => {
    const { app, sessionId } = await trippedSession("caller:anonymous:team/alpha?#1");
    const response = await app.request(path(sessionId), { headers: auth });
    expect(response.status).toBe(200);
    expect(((await response.json()) as SessionSnapshot).sessionId).toBe(sessionId);
  });

  it.each([
    ["a newline", "thread:a\nforged log line"],
    ["a NUL", "thread:\u0000"],
    ["an overlong id", `thread:${"x".repeat(2_000)}`],
  ])("refuses a session id with %s: 400 with the reason", async (_what, sessionId) => {
    const { app } = await trippedSession();
    for (const [method, suffix] of [["GET", ""], ["POST", "/reset"]] as const) {
      const response = await app.request(path(sessionId, suffix), { method, headers: auth });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe("INVALID_SESSION_ID");
      expect(body.message.length).toBeGreaterThan(10);
    }
  });

  it("serves the breaker's verdict counter in Prometheus text format", async () => {
    const app = createOpsApp({ token: TOKEN, store: new MemoryStore(), metrics: prometheus });
    const scrape = async () => {
      const response = await app.request("/metrics", { headers: auth });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
      return response.text();
    };
    const opened = (text: string): number => {
      const line = /^breaker_verdicts_total\{([^}]*)\} (\d+)$/gm;
      let total = 0;
      for (const [, labels, value] of text.matchAll(line)) {
        if (labels!.includes('breaker_state="OPEN"') && labels!.includes('breaker_detector="identical_repeat"')) total += Number(value);
      }
      return total;
    };
    const before = opened(await scrape());
    await trippedSession("thread:metrics");
    const text = await scrape();

    expect(text).toMatch(/^# TYPE breaker_verdicts_total counter$/m);
    expect(text).toMatch(/^# TYPE breaker_check_duration histogram$/m);
    // The trip refused exactly one call.
    expect(opened(text)).toBe(before + 1);
  });
});

describe("parseSessionParam", () => {
  it("refuses text that is not well-formed Unicode (a lone surrogate)", () => {
    expect(parseSessionParam("thread:\ud800")).toEqual({ ok: false, message: "The session id is not well-formed Unicode." });
    expect(parseSessionParam("thread:\u00e9")).toEqual({ ok: true, sessionId: "thread:\u00e9" });
  });
});

describe("the admin token", () => {
  it("turns the routes on when set, off when unset or blank", () => {
    expect(adminTokenFromEnv({ [ADMIN_TOKEN_VAR]: ` ${TOKEN} ` })).toBe(TOKEN);
    expect(adminTokenFromEnv({})).toBeUndefined();
    expect(adminTokenFromEnv({ [ADMIN_TOKEN_VAR]: "  " })).toBeUndefined();
  });

  it("refuses a short token at startup, naming the variable", () => {
    const refuse = () => adminTokenFromEnv({ [ADMIN_TOKEN_VAR]: "secret" });
    expect(refuse).toThrow(AdminTokenError);
    expect(refuse).toThrow(/^BREAKER_ADMIN_TOKEN must be at least 16 characters \(got 6\)/);
  });

  it("is matched whole: a prefix, an extension or a second word does not pass", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer  ${TOKEN} `, TOKEN)).toBe(true);
    expect(bearerMatches(`Bearer ${TOKEN.slice(0, -1)}`, TOKEN)).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN}x`, TOKEN)).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN} extra`, TOKEN)).toBe(false);
    expect(bearerMatches("Bearer ", TOKEN)).toBe(false);
    expect(bearerMatches(undefined, TOKEN)).toBe(false);
  });
});
