import { metrics } from "@opentelemetry/api";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";

/** The breaker's OpenTelemetry metrics in Prometheus text format. */
export interface PrometheusMetrics {
  /** The exposition text of every metric collected so far. */
  text(): Promise<string>;
}

/** Thrown by `text()` when another MeterProvider was registered first: the metrics go there, not here. */
export class MetricsUnavailableError extends Error {
  override readonly name = "MetricsUnavailableError";
}

/** The Content-Type of Prometheus's text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * Register a MeterProvider whose reader the /metrics route collects from
 * (the exporter's own HTTP server is not started: the route serves it on the
 * LangGraph server's port). Every breaker reports to the global provider at
 * each check, so the graph's breaker reports here. When the application
 * registered its own SDK first, that one keeps the metrics and `text()`
 * says so.
 */
export function registerPrometheusMetrics(): PrometheusMetrics {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const registered = metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  const serializer = new PrometheusSerializer();
  return {
    async text() {
      if (!registered) {
        throw new MetricsUnavailableError(
          "Another OpenTelemetry MeterProvider was registered before the ops routes: the breaker's metrics go to its exporter.",
        );
      }
      const { resourceMetrics } = await reader.collect();
      return serializer.serialize(resourceMetrics);
    },
  };
}
