import { Hono, type Context } from "hono";
import { resetSession } from "../breaker/cli/session-report.js";
import type { BreakerStore } from "../breaker/index.js";
import { bearerMatches } from "./bearer-auth.js";
import { MetricsUnavailableError, PROMETHEUS_CONTENT_TYPE, type PrometheusMetrics } from "./prometheus-metrics.js";
import { parseSessionParam } from "./session-param.js";

/** What the ops routes work with. */
export interface OpsAppOptions {
  /** The admin bearer token; without one the app has no routes (every path is the server's 404). */
  token: string | undefined;
  /** The store the graph keeps breaker sessions in. */
  store: BreakerStore;
  /** Where GET /metrics reads from. */
  metrics: PrometheusMetrics;
  /** Where a failed route writes its error (mask secrets before it reaches a log); default console.warn. */
  log?: (line: string) => void;
}

type Handler = (c: Context) => Promise<Response>;

const problem = (c: Context, status: 400 | 401 | 404 | 503, error: string, message: string) => c.json({ error, message }, status);

const failure = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The breaker's ops routes for the LangGraph server (`http.app` in
 * langgraph.json): GET /breaker/sessions/:id (the session's circuit, recent
 * calls and findings, as `npm run breaker -- inspect --json` prints them),
 * POST /breaker/sessions/:id/reset, and GET /metrics (Prometheus text).
 * Each answers 401 without `Authorization: Bearer <token>`, and 503 when the
 * store fails (a fail-closed Redis that is down), the error going to `log`.
 * No token, no routes: the app registers no middleware either, since the
 * server mounts it in front of its own routes.
 */
export function createOpsApp({ token, store, metrics, log = (line) => console.warn(line) }: OpsAppOptions): Hono {
  const app = new Hono();
  if (!token) return app;

  const guarded = (handler: Handler): Handler => async (c) => {
    if (!bearerMatches(c.req.header("authorization"), token)) {
      c.header("WWW-Authenticate", 'Bearer realm="breaker-ops"');
      return problem(c, 401, "UNAUTHORIZED", "Send Authorization: Bearer <BREAKER_ADMIN_TOKEN>.");
    }
    try {
      return await handler(c);
    } catch (error) {
      log(`[guarded-agent] ${c.req.method} ${c.req.path} failed: ${failure(error)}`);
      return problem(c, 503, "STORE_UNAVAILABLE", "The breaker's store did not answer; the server log has the error.");
    }
  };
  const withSession = (handler: (c: Context, sessionId: string) => Promise<Response>): Handler =>
    guarded(async (c) => {
      const param = parseSessionParam(c.req.param("id"));
      if (!param.ok) return problem(c, 400, "INVALID_SESSION_ID", param.message);
      return handler(c, param.sessionId);
    });

  app.get(
    "/breaker/sessions/:id",
    withSession(async (c, sessionId) => {
      const snapshot = await store.snapshot(sessionId);
      // Not found is what a reset leaves: the session's next call starts CLOSED, from nothing.
      if (!snapshot) return c.json({ error: "SESSION_NOT_FOUND", state: "CLOSED", message: "No such session (unknown, reset, or expired): its next call starts CLOSED." }, 404);
      return c.json(snapshot);
    }),
  );
  app.post(
    "/breaker/sessions/:id/reset",
    withSession(async (c, sessionId) => c.json(await resetSession(store, sessionId))),
  );
  app.get(
    "/metrics",
    guarded(async (c) => {
      try {
        return c.body(await metrics.text(), 200, { "Content-Type": PROMETHEUS_CONTENT_TYPE });
      } catch (error) {
        if (error instanceof MetricsUnavailableError) return problem(c, 503, "METRICS_UNAVAILABLE", error.message);
        throw error;
      }
    }),
  );
  return app;
}
