import { metrics, trace, type Attributes } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

/** One data point of a metric: its attributes and its value (a number, or a histogram's summary). */
export interface Point {
  attributes: Attributes;
  value: number | { count: number; sum?: number };
}

/** The OpenTelemetry SDK with in-memory exporters, as an application would register it. */
export interface TestOtel {
  meterProvider: MeterProvider;
  tracerProvider: BasicTracerProvider;
  /** Collect now and return the points of one metric (empty when it recorded nothing). */
  points(name: string): Promise<Point[]>;
  /** Every finished span so far. */
  spans(): ReadableSpan[];
  shutdown(): Promise<void>;
}

/** An SDK with in-memory exporters; `global` registers it as the application's SDK. */
export function startOtel({ global = true } = {}): TestOtel {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exports only when flushed: the test decides when to look.
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
  if (global) {
    metrics.setGlobalMeterProvider(meterProvider);
    trace.setGlobalTracerProvider(tracerProvider);
  }
  return {
    meterProvider,
    tracerProvider,
    async points(name) {
      await reader.forceFlush();
      const latest = exporter.getMetrics().at(-1);
      const metric: MetricData | undefined = latest?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, value: p.value as Point["value"] }));
    },
    spans: () => spanExporter.getFinishedSpans(),
    async shutdown() {
      if (global) {
        metrics.disable();
        trace.disable();
      }
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}

/** Sum of a counter's points whose attributes include `match`. */
export function total(points: readonly Point[], match: Attributes = {}): number {
  return points
    .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
    .reduce((n, p) => n + (typeof p.value === "number" ? p.value : p.value.count), 0);
}
