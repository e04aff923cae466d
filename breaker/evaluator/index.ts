// The offline evaluator: replays recorded trajectories through the runtime breaker.
export { evaluateTrajectory, replayStart, SYNTHETIC_TURN_MS } from "./evaluate.js";
export type { EvaluateOptions, EvaluationResult, TracedCall } from "./evaluate.js";
export { toTrajectory } from "./to-trajectory.js";
export type { ReplayCall, ReplayEvent, ReplayTrajectory } from "./trajectory.js";
export { readTrajectoryItems, InputError } from "./read-input.js";
export type { SourceItem } from "./read-input.js";
export { toHaveNoToolLoops } from "./matcher.js";
export type { MatcherContext, MatcherResult } from "./matcher.js";
export { describeFindings } from "./describe.js";
