import { callRate } from "./call-rate.js";
import type { Detector } from "./detector.js";
import { identicalRepeat } from "./identical-repeat.js";
import { runCalls } from "./run-calls.js";

export type { DetectionInput, Detector } from "./detector.js";

/** Every detector the breaker runs, in the order their findings are reported. */
export const DETECTORS: readonly Detector[] = [identicalRepeat, callRate, runCalls];
