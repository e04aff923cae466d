import { expect } from "vitest";
import { BreakerError, type Verdict } from "../../../breaker/index.js";

const STATES = ["CLOSED", "HALF_OPEN", "OPEN"];

/** Fail unless `value` is a well-formed verdict for `callId` (when given). */
export function expectVerdict(value: unknown, callId?: string): asserts value is Verdict {
  const v = value as Verdict;
  expect(typeof v.callId).toBe("string");
  if (callId !== undefined) expect(v.callId).toBe(callId);
  expect(typeof v.tool).toBe("string");
  expect(Number.isInteger(v.step) && v.step >= 0).toBe(true);
  expect(STATES).toContain(v.state);
  expect(v.allowed).toBe(v.state !== "OPEN");
  expect(Array.isArray(v.findings)).toBe(true);
  for (const f of v.findings) {
    expect(typeof f.detector).toBe("string");
    expect(["warn", "block"]).toContain(f.severity);
    expect(f.message.length).toBeGreaterThan(10);
  }
}

/** Fail unless `error` is a BreakerError with a code and a sentence a user can act on. */
export function expectBreakerError(error: unknown, code?: string): asserts error is BreakerError {
  expect(error).toBeInstanceOf(BreakerError);
  const e = error as BreakerError;
  if (code) expect(e.code).toBe(code);
  expect(e.message).toMatch(/^[A-Za-z`(].{15,}[.)]$/s);
}

/** Settle `work`: its value, or the error it threw, never an unhandled rejection. */
export async function settle<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error };
  }
}
