import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BREAKER_ATTRIBUTES as A,
  BREAKER_METRICS as M,
  BREAKER_SPANS as S,
  createBreaker,
  instrument,
  isInstrumented,
  MemoryStore,
  type Breaker,
  type ToolCallRequest,
  type Verdict,
} from "../../breaker/index.js";
import { startOtel, total, type TestOtel } from "./support/otel.js";

const SQL = { name: "query_database", args: { sql: "SELECT * FROM overdue_invoices" } };

/** Check the same failing query until the circuit opens: CLOSED, HALF_OPEN, OPEN. */
async function runLoop(breaker: Breaker, sessionId = "s1"): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (let i = 1; i <= 3; i++) {
    const verdict = await breaker.check(sessionId, { ...SQL, id: `c${i}` });
    verdicts.push(verdict);
    if (verdict.allowed) await breaker.complete(sessionId, verdict.callId, { error: 'relation "overdue_invoices" does not exist' });
  }
  return verdicts;
}

/** The finding a verdict is counted under: the first blocking one, else the first, else none. */
const deciding = (v: Verdict) => (v.findings.find((f) => f.severity === "block") ?? v.findings[0])?.detector ?? "none";

let otel: TestOtel;
beforeEach(() => {
  otel = startOtel();
});
afterEach(async () => {
  await otel.shutdown();
});

describe("breaker telemetry through the OpenTelemetry SDK", () => {
  it("counts every verdict by state, deciding detector and tool", async () => {
    const verdicts = await runLoop(createBreaker());
    expect(verdicts.map((v) => v.state)).toEqual(["CLOSED", "HALF_OPEN", "OPEN"]);

    const points = await otel.points(M.verdicts);
    expect(points).toHaveLength(3);
    for (const v of verdicts) {
      expect(total(points, { [A.state]: v.state, [A.detector]: deciding(v), [A.tool]: "query_database" })).toBe(1);
    }
    expect(total(points, { [A.state]: "CLOSED", [A.detector]: "none" })).toBe(1);
  });

  it("records the duration of every check operation, in seconds", async () => {
    const breaker = createBreaker();
    await runLoop(breaker);
    await breaker.checkBatch("s2", [
      { ...SQL, id: "b1" },
      { name: "query_crm", args: { company_name: "Acme" }, id: "b2" },
    ]);

    const points = await otel.points(M.checkDuration);
    expect(total(points, { [A.operation]: "check" })).toBe(3);
    expect(total(points, { [A.operation]: "check_batch" })).toBe(1);
    for (const p of points) expect((p.value as { sum: number }).sum).toBeGreaterThan(0);
  });

  it("opens one span per judged call with its verdict as attributes", async () => {
    const verdicts = await runLoop(createBreaker(), "span-session");
    const spans = otel.spans().filter((s) => s.name === S.check);

    expect(spans).toHaveLength(3);
    spans.forEach((span, i) => {
      expect(span.attributes).toMatchObject({
        [A.session]: "span-session",
        [A.tool]: "query_database",
        [A.callId]: `c${i + 1}`,
        [A.step]: verdicts[i]!.step,
        [A.state]: verdicts[i]!.state,
        [A.allowed]: verdicts[i]!.allowed,
        [A.detector]: deciding(verdicts[i]!),
        [A.degraded]: false,
      });
      expect(span.attributes[A.findings]).toEqual(verdicts[i]!.findings.map((f) => f.detector));
    });
  });

  it("puts the calls of a batch under one batch span, timed by the store operation they shared", async () => {
    const calls: ToolCallRequest[] = [
      { ...SQL, id: "b1" },
      { name: "query_crm", args: { company_name: "Acme" }, id: "b2" },
    ];
    await createBreaker().checkBatch("batch", calls);
    const [batch] = otel.spans().filter((s) => s.name === S.checkBatch);
    const children = otel.spans().filter((s) => s.name === S.check);

    expect(batch?.attributes).toMatchObject({ [A.session]: "batch", [A.batchSize]: 2 });
    expect(children.map((c) => c.attributes[A.callId])).toEqual(["b1", "b2"]);
    for (const child of children) {
      expect(child.parentSpanContext?.spanId).toBe(batch!.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(batch!.spanContext().traceId);
    }
  });

  it("marks a check that fails on bad input as an error, and still times it", async () => {
    await expect(createBreaker().check("", { ...SQL, id: "x" })).rejects.toMatchObject({ code: "INVALID_SESSION_ID" });
    const [span] = otel.spans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.events.map((e) => e.name)).toContain("exception");
    expect(total(await otel.points(M.checkDuration), { "error.type": "BreakerError" })).toBe(1);
    expect(await otel.points(M.verdicts)).toEqual([]);
  });

  it("counts checks a fail mode answered: refused for an unavailable store, served from memory when degraded", async () => {
    const down = new MemoryStore();
    // A check is one recordBatch (a batch of one).
    down.recordBatch = async () => {
      throw new Error("connection refused");
    };
    const refused = await createBreaker({ store: down }).check("s", { ...SQL, id: "r1" });
    expect(refused.findings[0]?.detector).toBe("store_unavailable");

    // A verdict a fail-open store served from memory carries `degraded`.
    const plain = createBreaker({ telemetry: false });
    const degraded = instrument({
      ...plain,
      check: async (s, c) => ({ ...(await plain.check(s, c)), degraded: { reason: "Redis unreachable; served from memory" } }),
    });
    await degraded.check("s", { ...SQL, id: "d1" });

    const points = await otel.points(M.storeFallbacks);
    expect(total(points, { [A.fallback]: "refused" })).toBe(1);
    expect(total(points, { [A.fallback]: "memory" })).toBe(1);
    expect(otel.spans().at(-1)?.attributes[A.degraded]).toBe(true);
  });

  it("reports through an SDK registered after the breaker was built and first used", async () => {
    await otel.shutdown();
    const early = createBreaker();
    await early.check("before-sdk", { ...SQL, id: "unrecorded" });
    otel = startOtel();
    await runLoop(early);
    expect(total(await otel.points(M.verdicts))).toBe(3);
    expect(otel.spans().filter((s) => s.name === S.check)).toHaveLength(3);
  });

  it("reports nothing with telemetry: false, and instruments a breaker only once", async () => {
    await runLoop(createBreaker({ telemetry: false }));
    expect(await otel.points(M.verdicts)).toEqual([]);
    expect(otel.spans()).toEqual([]);

    const breaker = createBreaker();
    expect(isInstrumented(breaker)).toBe(true);
    expect(instrument(breaker)).toBe(breaker);
    await runLoop(instrument(instrument(breaker)));
    expect(total(await otel.points(M.verdicts))).toBe(3);
  });

  it("keeps the tool label's values bounded: a model can invent any number of tool names", async () => {
    const breaker = createBreaker({ telemetry: { maxToolLabels: 2 } });
    for (const [i, name] of ["a", "b", "c", "d", "a"].entries()) await breaker.check("s", { id: `t${i}`, name, args: {} });
    const points = await otel.points(M.verdicts);
    expect(points.map((p) => p.attributes[A.tool]).sort()).toEqual(["_other", "a", "b"]);
    expect(total(points, { [A.tool]: "_other" })).toBe(2);
    expect(total(points, { [A.tool]: "a" })).toBe(2);
  });

  it("reports to the providers given in the options instead of the global ones", async () => {
    const local = startOtel({ global: false });
    await runLoop(createBreaker({ telemetry: { meterProvider: local.meterProvider, tracerProvider: local.tracerProvider } }));
    expect(total(await local.points(M.verdicts))).toBe(3);
    expect(local.spans()).toHaveLength(3);
    expect(await otel.points(M.verdicts)).toEqual([]);
    await local.shutdown();
  });
});
