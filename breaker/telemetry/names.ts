/** Name of the meter and the tracer the breaker reports through. */
export const INSTRUMENTATION_SCOPE = "guarded-agent/breaker";

/** Metric names, for dashboards and alerts. */
export const BREAKER_METRICS = {
  /** Counter: one per judged call, by state, decisive detector and tool. */
  verdicts: "breaker.verdicts",
  /** Histogram, seconds: how long one `check` or `checkBatch` took, store round trip included. */
  checkDuration: "breaker.check.duration",
  /** Counter: checks a fail mode answered because the store could not (served from memory, or refused). */
  storeFallbacks: "breaker.store.fallbacks",
} as const;

/** Span names: one `breaker.check` span per judged call; a batch adds a parent `breaker.check_batch`. */
export const BREAKER_SPANS = {
  check: "breaker.check",
  checkBatch: "breaker.check_batch",
} as const;

/** Attribute keys on the metrics and the spans. */
export const BREAKER_ATTRIBUTES = {
  state: "breaker.state",
  /** The finding that decided the verdict (the first blocking one, else the first), or "none". */
  detector: "breaker.detector",
  tool: "breaker.tool",
  /** "check" or "check_batch". */
  operation: "breaker.operation",
  /** "memory" (served from the fail-open fallback) or "refused" (the store was unavailable). */
  fallback: "breaker.fallback",
  // Span-only attributes: too many distinct values for a metric.
  session: "breaker.session.id",
  callId: "breaker.call.id",
  step: "breaker.step",
  allowed: "breaker.allowed",
  findings: "breaker.findings",
  degraded: "breaker.degraded",
  batchSize: "breaker.batch.size",
} as const;

/** The detector label of a verdict without findings. */
export const NO_DETECTOR = "none";
/** The tool label once a process has seen more distinct tool names than a metric should carry. */
export const OTHER_TOOL = "_other";
