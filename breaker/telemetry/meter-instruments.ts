import { createNoopMeter, metrics, type Counter, type Histogram, type MeterProvider } from "@opentelemetry/api";
import { BREAKER_METRICS, INSTRUMENTATION_SCOPE } from "./names.js";

/** The breaker's metric instruments. */
export interface BreakerInstruments {
  verdicts: Counter;
  checkDuration: Histogram;
  storeFallbacks: Counter;
  /** True when every instrument is the API's no-op (no SDK registered): nothing recorded is kept, so labels need not be built. */
  noop: boolean;
}

// Seconds. A memory check takes tens of microseconds, a Redis one about a
// millisecond: the SDK's default buckets (0, 5, 10, ... in the unit) would put
// every check in the first one.
const CHECK_DURATION_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const NOOP_METER = createNoopMeter();

function createInstruments(provider: MeterProvider): BreakerInstruments {
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  const instruments: Omit<BreakerInstruments, "noop"> = {
    verdicts: meter.createCounter(BREAKER_METRICS.verdicts, {
      description: "Tool calls the circuit breaker judged, by state, deciding detector and tool.",
      unit: "{call}",
    }),
    checkDuration: meter.createHistogram(BREAKER_METRICS.checkDuration, {
      description: "Duration of a breaker check (one call) or batch check (one model message), store included.",
      unit: "s",
      advice: { explicitBucketBoundaries: CHECK_DURATION_BUCKETS },
    }),
    storeFallbacks: meter.createCounter(BREAKER_METRICS.storeFallbacks, {
      description: "Checks answered by the store's fail mode (from memory, or refused) because the store was unavailable.",
      unit: "{call}",
    }),
  };
  const noop =
    instruments.verdicts === NOOP_METER.createCounter("") &&
    instruments.checkDuration === NOOP_METER.createHistogram("") &&
    instruments.storeFallbacks === NOOP_METER.createCounter("");
  return { ...instruments, noop };
}

/**
 * A function returning the instruments of `provider`, or of the global meter
 * provider as it is at the time of the call. The metrics API has no proxy: a
 * meter taken before the application registers its SDK stays a no-op, and a
 * breaker is often built at import time, before that registration.
 */
export function meterInstruments(provider?: MeterProvider): () => BreakerInstruments {
  let source: MeterProvider | undefined;
  let instruments: BreakerInstruments | undefined;
  return () => {
    const current = provider ?? metrics.getMeterProvider();
    if (current !== source || !instruments) {
      instruments = createInstruments(current);
      source = current;
    }
    return instruments;
  };
}
