import type { Section } from "../lib/section.js";
import { checkLatencySection } from "./check-latency.js";
import { detectionCostSection } from "./detection-cost.js";
import { evaluatorThroughputSection } from "./evaluator-throughput.js";
import { graphOverheadSection } from "./graph-overhead.js";
import { redisMemorySection } from "./redis-memory.js";
import { savingsSection } from "./savings.js";

/** Every section, in report order. */
export const SECTIONS: readonly Section[] = [checkLatencySection, graphOverheadSection, detectionCostSection, evaluatorThroughputSection, redisMemorySection, savingsSection];
