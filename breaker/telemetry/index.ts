// OpenTelemetry for the breaker, through @opentelemetry/api only: a no-op until the application registers an SDK.
export { instrument, isInstrumented } from "./instrument.js";
export type { TelemetryOptions } from "./instrument.js";
export { BREAKER_ATTRIBUTES, BREAKER_METRICS, BREAKER_SPANS, INSTRUMENTATION_SCOPE, NO_DETECTOR, OTHER_TOOL } from "./names.js";
export { decidingDetector } from "./verdict-attributes.js";
