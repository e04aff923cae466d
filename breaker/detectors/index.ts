import { costBudget, tokenBudget } from "./budgets.js";
import { callRate } from "./call-rate.js";
import { cycle } from "./cycle.js";
import type { Detector } from "./detector.js";
import { errorFlood } from "./error-flood.js";
import { flailing } from "./flailing.js";
import { identicalRepeat } from "./identical-repeat.js";
import { noProgress } from "./no-progress.js";
import { pageRevisit } from "./page-revisit.js";
import { refusedTools } from "./refused-tools.js";
import { runCalls } from "./run-calls.js";
import { sameFailure } from "./same-failure.js";
import { semanticStutter } from "./semantic-stutter.js";
import { sessionRepeat } from "./session-repeat.js";
import { stuckPoll } from "./stuck-poll.js";

export type { DetectionInput, Detector } from "./detector.js";
export { observedNature } from "./observed-nature.js";
export { sameRequest, argsSimilarity, valueSimilarity } from "./similarity.js";
export { argFeatures, normalizeText } from "./arg-features.js";

/** Every detector the breaker runs, in the order their findings are reported: loops first, then budgets. */
export const DETECTORS: readonly Detector[] = [
  identicalRepeat,
  noProgress,
  semanticStutter,
  pageRevisit,
  stuckPoll,
  cycle,
  flailing,
  refusedTools,
  sameFailure,
  errorFlood,
  sessionRepeat,
  callRate,
  runCalls,
  tokenBudget,
  costBudget,
];
