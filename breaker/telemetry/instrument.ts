import {
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type MeterProvider,
  type Span,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import type { Breaker } from "../breaker.js";
import type { ToolCallRequest, Verdict } from "../types.js";
import { meterInstruments, type BreakerInstruments } from "./meter-instruments.js";
import { BREAKER_ATTRIBUTES as A, BREAKER_SPANS, INSTRUMENTATION_SCOPE } from "./names.js";
import { fallbackOf, ToolLabels, verdictLabels, verdictSpanAttributes } from "./verdict-attributes.js";

/** Where the breaker's metrics and spans go. Both default to the global providers, which are no-ops until an SDK is registered. */
export interface TelemetryOptions {
  meterProvider?: MeterProvider;
  tracerProvider?: TracerProvider;
  /** Distinct tool names the verdict counter labels before it says "_other". Default 100. */
  maxToolLabels?: number;
}

const INSTRUMENTED = Symbol.for("guarded-agent.breaker.instrumented");
const DEFAULT_MAX_TOOL_LABELS = 100;

/** True when the breaker already reports through OpenTelemetry. */
export function isInstrumented(breaker: Breaker): boolean {
  return (breaker as unknown as Record<symbol, unknown>)[INSTRUMENTED] === true;
}

/** A session id as a span attribute; bad ids are the breaker's to refuse, never a reason to throw here. */
function sessionLabel(sessionId: unknown): string {
  return typeof sessionId === "string" ? sessionId : `(${typeof sessionId})`;
}

/** What failed, for the span: a thrown value may be anything, even an object with no string form. */
function failureText(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return typeof error;
  }
}

/** Wall-clock milliseconds with sub-millisecond precision, as span times accept them. */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * False for the API's no-op span (no tracer registered): it has no context to
 * pass on and keeps nothing, so the work runs without it and no child spans
 * or attributes are made for it. A span sampled out still has a valid
 * context, which its children must see, so it is treated as traced.
 */
function traced(span: Span): boolean {
  if (span.isRecording()) return true;
  const spanContext = span.spanContext();
  // The no-op span carries the API's invalid context itself: its ids need no checking (two regex scans).
  return spanContext !== INVALID_SPAN_CONTEXT && isSpanContextValid(spanContext);
}

/**
 * True when a check's span could be neither kept nor seen: the provider is the
 * API's proxy with no SDK set behind it, and no span is active to parent it,
 * so the span would be the no-op one.
 */
function untraceable(provider: TracerProvider): boolean {
  return provider instanceof ProxyTracerProvider && provider.getDelegateTracer(INSTRUMENTATION_SCOPE) === undefined && trace.getSpanContext(context.active()) === undefined;
}

/**
 * The same breaker, reporting every check to OpenTelemetry: a verdict
 * counter, a check-duration histogram, a store-fallback counter, and one span
 * per judged call with its verdict as attributes. Only `check` and
 * `checkBatch` are wrapped; what they decide is unchanged. Idempotent.
 */
export function instrument(breaker: Breaker, options: TelemetryOptions = {}): Breaker {
  if (isInstrumented(breaker)) return breaker;
  const instruments = meterInstruments(options.meterProvider);
  const tools = new ToolLabels(options.maxToolLabels ?? DEFAULT_MAX_TOOL_LABELS);
  // Looked up again only when the provider changes: the global one is a proxy whose tracers find an SDK
  // registered later by themselves, and a lookup makes a new one on every check.
  let tracerSource: TracerProvider | undefined;
  let cachedTracer: Tracer | undefined;
  const tracer = (): Tracer => {
    const provider = options.tracerProvider ?? trace.getTracerProvider();
    if (provider !== tracerSource || !cachedTracer) {
      cachedTracer = provider.getTracer(INSTRUMENTATION_SCOPE);
      tracerSource = provider;
    }
    return cachedTracer;
  };

  // Nothing a check reports would be kept (no meter SDK, no tracer SDK, no parent span): it runs bare.
  const unobserved = (): boolean => instruments().noop && untraceable(options.tracerProvider ?? trace.getTracerProvider());

  function count(meters: BreakerInstruments, verdicts: readonly Verdict[]): void {
    for (const verdict of verdicts) {
      meters.verdicts.add(1, verdictLabels(verdict, tools.label(verdict.tool)));
      const fallback = fallbackOf(verdict);
      if (fallback) meters.storeFallbacks.add(1, { [A.fallback]: fallback });
    }
  }

  /** Run one check operation inside its span, timing it whatever happens. */
  async function measured<T>(
    operation: "check" | "check_batch",
    span: Span,
    work: () => Promise<T>,
    describe: (result: T, startMs: number, endMs: number) => Verdict[],
  ): Promise<T> {
    const meters = instruments();
    const started = meters.noop ? 0 : performance.now();
    const spanned = traced(span);
    // Span times only matter to a traced span; the wall clock (timeOrigin) is not free.
    const startMs = spanned ? nowMs() : 0;
    let failure: unknown;
    try {
      const result = spanned ? await context.with(trace.setSpan(context.active(), span), work) : await work();
      const verdicts = describe(result, startMs, spanned ? nowMs() : 0);
      if (!meters.noop) count(meters, verdicts);
      return result;
    } catch (error) {
      failure = error;
      span.recordException(error instanceof Error ? error : failureText(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: failureText(error) });
      throw error;
    } finally {
      if (!meters.noop) {
        const failed = failure === undefined ? {} : { "error.type": failure instanceof Error ? failure.name : typeof failure };
        meters.checkDuration.record((performance.now() - started) / 1_000, { [A.operation]: operation, ...failed });
      }
      span.end();
    }
  }

  async function check(sessionId: string, call: ToolCallRequest): Promise<Verdict> {
    if (unobserved()) return breaker.check(sessionId, call);
    const span = tracer().startSpan(BREAKER_SPANS.check, { kind: SpanKind.INTERNAL, attributes: { [A.session]: sessionLabel(sessionId) } });
    return measured("check", span, () => breaker.check(sessionId, call), (verdict) => {
      if (traced(span)) span.setAttributes(verdictSpanAttributes(sessionId, verdict));
      return [verdict];
    });
  }

  async function checkBatch(sessionId: string, calls: readonly ToolCallRequest[]): Promise<Verdict[]> {
    if (unobserved()) return breaker.checkBatch(sessionId, calls);
    const t = tracer();
    const parent = t.startSpan(BREAKER_SPANS.checkBatch, {
      kind: SpanKind.INTERNAL,
      attributes: { [A.session]: sessionLabel(sessionId), [A.batchSize]: Array.isArray(calls) ? calls.length : 0 },
    });
    return measured("check_batch", parent, () => breaker.checkBatch(sessionId, calls), (verdicts, startMs, endMs) => {
      // The calls of a batch are judged in one store operation: each gets its
      // own span, spanning that operation, under the batch's.
      if (!traced(parent)) return verdicts;
      const within = trace.setSpan(context.active(), parent);
      for (const verdict of verdicts) {
        t.startSpan(BREAKER_SPANS.check, { kind: SpanKind.INTERNAL, startTime: startMs, attributes: verdictSpanAttributes(sessionId, verdict) }, within).end(endMs);
      }
      return verdicts;
    });
  }

  return Object.assign({ ...breaker, check, checkBatch }, { [INSTRUMENTED]: true });
}
