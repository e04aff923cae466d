import { decisiveFinding, type Verdict } from "../breaker/index.js";

/** Codes of the errors loopBreakerMiddleware raises. */
export type LoopBreakerErrorCode = "INVALID_MIDDLEWARE_OPTIONS" | "CIRCUIT_BREAKER_TRIPPED";

/** A loopBreakerMiddleware option that cannot work, with the sentence that says how to fix it. */
export class LoopBreakerOptionsError extends Error {
  override readonly name = "LoopBreakerOptionsError";
  readonly code: LoopBreakerErrorCode = "INVALID_MIDDLEWARE_OPTIONS";
}

const BRAND = Symbol.for("guarded-agent.LoopBreakerTrippedError");

/**
 * Thrown with `exitBehavior: "error"` when the circuit refuses a model
 * message's tool calls. createAgent wraps errors raised inside a model call
 * in a MiddlewareError; `LoopBreakerTrippedError.from(error)` finds this one
 * in the cause chain.
 */
export class LoopBreakerTrippedError extends Error {
  override readonly name = "LoopBreakerTrippedError";
  readonly code: LoopBreakerErrorCode = "CIRCUIT_BREAKER_TRIPPED";
  readonly [BRAND] = true;

  constructor(
    /** The breaker session that tripped. */
    readonly sessionId: string,
    /** The verdicts on every call of the refused message, in order. */
    readonly verdicts: readonly Verdict[],
  ) {
    const trip = verdicts.find((v) => !v.allowed);
    const finding = trip && decisiveFinding(trip);
    super(
      `The circuit breaker refused ${trip?.tool ?? "a tool call"} (${finding?.detector ?? "open circuit"}): ` +
        `${finding?.message ?? "the circuit is open."} None of the message's ${verdicts.length} tool call(s) ran.`,
    );
  }

  /** The trip error in `error` or its cause chain, or undefined. */
  static from(error: unknown): LoopBreakerTrippedError | undefined {
    for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
      if ((e as unknown as Record<symbol, unknown>)[BRAND] === true) return e as LoopBreakerTrippedError;
    }
    return undefined;
  }
}
