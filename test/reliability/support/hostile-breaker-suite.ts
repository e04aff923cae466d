import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBreaker, MAX_SESSION_ID_LENGTH, type BreakerStore } from "../../../breaker/index.js";
import { reportFigures } from "./figures.js";
import { hostileString, hostileValue, namedHostileValues } from "./hostile-values.js";
import { expectBreakerError, expectVerdict, settle } from "./verdict-shape.js";

/** How a suite gets its store, and how hard it may push it. */
export interface HostileSuiteOptions {
  /** A fresh store (or one shared by the suite; sessions are unique per test). */
  store: () => BreakerStore;
  /** Property runs per property (a remote store gets fewer). */
  numRuns: number;
}

let sessionCounter = 0;

// A verdict the detectors reached: the store answered (a store failure would also be a well-formed verdict).
function expectJudged(verdict: unknown, callId?: string): void {
  expectVerdict(verdict, callId);
  expect(verdict.findings.map((f) => f.detector)).not.toContain("store_unavailable");
}
const freshSession = (label: string): string => `hostile-${label}-${process.pid}-${++sessionCounter}`;

/**
 * Item 1 of the reliability issue, against any store: whatever a model or a
 * tool produces, check/complete return a verdict or resolve, and anything the
 * caller gets wrong is a typed BreakerError with a sentence to act on.
 */
export function hostileBreakerSuite(label: string, options: HostileSuiteOptions): void {
  // Figures for docs/RELIABILITY.md section 1, under the store's name ("memorystore", "standalone-redis").
  const scenario = label.toLowerCase().replace(/\W+/g, "-");
  const report = (figures: Record<string, number>) =>
    reportFigures({ section: "hostile", scenario, figures }, `hostile input on ${label}: ${JSON.stringify(figures)}`);
  const sessionRuns = Math.max(10, Math.floor(options.numRuns / 4));
  const named = namedHostileValues();
  /** The longest stored argument text: the cap, plus the mark that says it was cut. */
  const storedArgsMax = 2_049;

  describe(`the breaker on ${label} with hostile input`, () => {
    it("returns a verdict for arbitrary arguments and records arbitrary outputs and errors", async () => {
      const breaker = createBreaker({ store: options.store() });
      await fc.assert(
        fc.asyncProperty(hostileValue, hostileValue, hostileString, fc.boolean(), async (args, output, tool, failed) => {
          const sessionId = freshSession(label);
          const name = tool || "tool";
          const verdict = await breaker.check(sessionId, { id: "call-1", name, args });
          expectJudged(verdict, "call-1");
          expect(verdict.tool).toBe(name);
          await breaker.complete(sessionId, "call-1", failed ? { error: output || "failed" } : { output });
          const snapshot = await breaker.inspect(sessionId);
          expect(snapshot.totalCalls).toBe(1);
          expect(snapshot.window[0]?.outcome?.kind).toEqual(failed ? "error" : expect.stringMatching(/^(ok|empty)$/));
          await breaker.reset(sessionId);
        }),
        { numRuns: options.numRuns },
      );
      report({ runs: options.numRuns, named: named.length, storedArgsMax });
    });

    it.each(named)("survives %s as arguments, output and error", async (_name, value) => {
      const breaker = createBreaker({ store: options.store() });
      const sessionId = freshSession(label);
      for (const [i, outcome] of [{ output: value }, { error: value ?? "failed" }].entries()) {
        const verdict = await breaker.check(sessionId, { id: `call-${i}`, name: "tool", args: value });
        expectJudged(verdict, `call-${i}`);
        await breaker.complete(sessionId, `call-${i}`, outcome);
      }
      const snapshot = await breaker.inspect(sessionId);
      expect(snapshot.totalCalls).toBe(2);
      expect(snapshot.window.map((c) => c.outcome?.kind)).toEqual([expect.stringMatching(/^(ok|empty)$/), "error"]);
      // Stored arguments are capped (the hash covers the whole value).
      expect(snapshot.window.every((c) => c.args.length <= storedArgsMax)).toBe(true);
      await breaker.reset(sessionId);
    });

    it("keeps deciding over windows full of hostile calls, repeats included", async () => {
      const breaker = createBreaker({ store: options.store() });
      const plan = fc.array(hostileValue, { minLength: 1, maxLength: 3 }).chain((pool) =>
        fc.array(fc.record({ tool: fc.constantFrom("a", "b"), arg: fc.nat(pool.length - 1), output: fc.nat(pool.length - 1), failed: fc.boolean() }), {
          minLength: 1,
          maxLength: 12,
        }).map((calls) => ({ pool, calls })),
      );
      await fc.assert(
        fc.asyncProperty(plan, async ({ pool, calls }) => {
          const sessionId = freshSession(label);
          for (const [i, call] of calls.entries()) {
            const verdict = await breaker.check(sessionId, { id: `c${i}`, name: call.tool, args: pool[call.arg] });
            expectJudged(verdict, `c${i}`);
            if (verdict.allowed) await breaker.complete(sessionId, `c${i}`, call.failed ? { error: pool[call.output] || "x" } : { output: pool[call.output] });
          }
          expect((await breaker.inspect(sessionId)).totalCalls).toBe(calls.length);
          await breaker.reset(sessionId);
        }),
        { numRuns: sessionRuns },
      );
      report({ sessionRuns });
    });

    it("answers arbitrary call fields with a verdict or a typed INVALID_CALL error", async () => {
      const breaker = createBreaker({ store: options.store() });
      const call = fc.record(
        { id: fc.oneof(hostileString, hostileValue), name: fc.oneof(hostileString, hostileValue), args: hostileValue, run: fc.oneof(hostileString, fc.constant(undefined)), usage: hostileValue },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(call, hostileValue), async (raw) => {
          const sessionId = freshSession(label);
          const result = await settle(() => breaker.check(sessionId, raw as never));
          if (result.ok) expectJudged(result.value);
          else expectBreakerError(result.error, "INVALID_CALL");
          await breaker.reset(sessionId);
        }),
        { numRuns: options.numRuns },
      );
    });

    it("refuses session ids that are not non-empty bounded strings with INVALID_SESSION_ID, on every method", async () => {
      const breaker = createBreaker({ store: options.store() });
      const bad = fc.oneof(hostileValue.filter((v) => typeof v !== "string"), fc.constant(""), fc.constant("x".repeat(MAX_SESSION_ID_LENGTH + 1)));
      await fc.assert(
        fc.asyncProperty(bad, async (sessionId) => {
          const calls: (() => Promise<unknown>)[] = [
            () => breaker.check(sessionId as string, { id: "c", name: "t", args: {} }),
            () => breaker.complete(sessionId as string, "c", { output: 1 }),
            () => breaker.inspect(sessionId as string),
            () => breaker.reset(sessionId as string),
          ];
          for (const work of calls) {
            const result = await settle(work);
            expect(result.ok).toBe(false);
            if (!result.ok) expectBreakerError(result.error, "INVALID_SESSION_ID");
          }
        }),
        { numRuns: sessionRuns },
      );
      report({ badSessionIdChars: MAX_SESSION_ID_LENGTH + 1 });
    });

    it("refuses a missing outcome or call id in complete() with INVALID_CALL", async () => {
      const breaker = createBreaker({ store: options.store() });
      const sessionId = freshSession(label);
      for (const [callId, outcome] of [["c", null], ["c", undefined], ["c", 42], ["c", "ok"], [undefined, { output: 1 }], [{}, { output: 1 }]] as const) {
        const result = await settle(() => breaker.complete(sessionId, callId as never, outcome as never));
        expect(result.ok).toBe(false);
        if (!result.ok) expectBreakerError(result.error, "INVALID_CALL");
      }
    });

    it("prices a model named like an Object member as any unknown model, so the cost budget still trips", async () => {
      const policy = { detectors: { cost_budget: { warn: 0.01, block: 0.02 } } };
      for (const model of ["constructor", "__proto__", "toString", "hasOwnProperty", "unknown-model"]) {
        const breaker = createBreaker({ store: options.store(), policy });
        const sessionId = freshSession(label);
        const states: string[] = [];
        // 1,000 in + 1,000 out at the default price ($3 / $15 per million) is $0.018 a turn.
        for (let i = 0; i < 2; i++) {
          const verdict = await breaker.check(sessionId, { id: `c${i}`, name: `t${i}`, args: { i }, usage: { inputTokens: 1_000, outputTokens: 1_000, model } });
          states.push(verdict.state);
        }
        const { usage } = await breaker.inspect(sessionId);
        expect({ model, costMicros: usage.costMicros, states }).toEqual({ model, costMicros: 36_000, states: ["HALF_OPEN", "OPEN"] });
        await breaker.reset(sessionId);
        if (model === "unknown-model") report({ objectMemberCostMicros: usage.costMicros });
      }
    });
  });
}
