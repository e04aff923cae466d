// The circuit breaker as LangChain v1 createAgent middleware.
export { loopBreakerMiddleware, LOOP_BREAKER_MIDDLEWARE_NAME } from "./loop-breaker-middleware.js";
export type { BreakerVerdictEvent } from "./loop-breaker-middleware.js";
export { EXIT_BEHAVIORS } from "./options.js";
export type { LoopBreakerExitBehavior, LoopBreakerMiddlewareOptions, SessionRuntime } from "./options.js";
export { LoopBreakerOptionsError, LoopBreakerTrippedError } from "./errors.js";
export type { LoopBreakerErrorCode } from "./errors.js";
export { LoopBreakerStateSchema } from "./state.js";
export type { LoopBreakerState } from "./state.js";
