// The breaker library: no LangGraph here, so any agent loop can use it.
export { createBreaker, deriveBreaker, advisoryFor, MAX_SESSION_ID_LENGTH } from "./breaker.js";
export type { Breaker, BreakerOptions } from "./breaker.js";
export { instrument, isInstrumented, BREAKER_ATTRIBUTES, BREAKER_METRICS, BREAKER_SPANS, INSTRUMENTATION_SCOPE } from "./telemetry/index.js";
export type { TelemetryOptions } from "./telemetry/index.js";
export { MemoryStore } from "./stores/memory-store.js";
export type { MemoryStoreOptions } from "./stores/memory-store.js";
export type {
  BatchRecord,
  BreakerStore,
  CircuitClaim,
  Completion,
  NewCall,
  OutcomeReport,
  RecordResult,
  StoreEvent,
  StoreLimits,
  TransitionPosition,
} from "./stores/store.js";
export { RedisStore } from "./stores/redis-store.js";
export type { RedisFailMode, RedisStoreOptions } from "./stores/redis-store.js";
export type { RedisClient } from "./stores/redis-connection.js";
export { redisStoreFromEnv } from "./stores/redis-env.js";
export { freshCircuit, noUsage } from "./stores/store.js";
export { parsePolicy, detectorsFor, natureOf, withToolDeclarations, DEFAULT_POLICY, PolicySchema } from "./policy.js";
export type { Policy, PolicyInput, DetectorsPolicy, DetectorOverrides, ToolDeclaration } from "./policy.js";
export { decide, decisiveFinding, stateOf } from "./decide.js";
export { isContinuation, turnKey } from "./turns.js";
export type { Decision, DecisionInput } from "./decide.js";
export { DETECTORS } from "./detectors/index.js";
export type { Detector, DetectionInput } from "./detectors/index.js";
export { safeJson, canonicalArgs, canonicalOutput, fingerprintArgs, fingerprintOutput, hashText } from "./canonical.js";
export { summarizeOutcome } from "./outcome.js";
export type { RawOutcome } from "./outcome.js";
export { priceUsage } from "./cost.js";
export { addUsage, usageOf } from "./usage.js";
export { BreakerError } from "./errors.js";
export { MASK, maskSecrets, urlSecrets } from "./secrets.js";
export { BoundedCache } from "./bounded-cache.js";
export type { BreakerErrorCode } from "./errors.js";
export type { BreakerEvents, BreakerEventName, BreakerListener } from "./events.js";
export type * from "./types.js";
export { DEFAULT_NATURES } from "./policy.js";
export { observedNature, sameRequest } from "./detectors/index.js";
export {
  evaluateTrajectory,
  toTrajectory,
  readTrajectoryItems,
  InputError,
  toHaveNoToolLoops,
  describeFindings,
  SYNTHETIC_TURN_MS,
  replayStart,
} from "./evaluator/index.js";
export type {
  EvaluationResult,
  ReplayCall,
  ReplayEvent,
  ReplayTrajectory,
  SourceItem,
  MatcherContext,
  MatcherResult,
} from "./evaluator/index.js";
