/** Codes of the errors the breaker's API can raise on bad input or configuration. */
export type BreakerErrorCode =
  | "INVALID_POLICY"
  | "INVALID_SESSION_ID"
  | "INVALID_CALL"
  | "STORE_UNAVAILABLE"
  | "INVALID_TRAJECTORY"
  | "INVALID_STORE_OPTIONS";

/** A typed error with a code and a sentence a user can act on. */
export class BreakerError extends Error {
  override readonly name = "BreakerError";
  constructor(
    readonly code: BreakerErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
