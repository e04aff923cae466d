/** A plain object's fields, or undefined for anything else: trajectories are untrusted JSON. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A non-empty string field, or undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** A finite non-negative number field, or undefined. */
export function asCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Epoch ms from an ISO string or epoch seconds/ms, or undefined. */
export function asTime(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return value < 1e11 ? value * 1_000 : value;
  if (typeof value === "string") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

// The names logs give a message's or call's time (LangSmith's `start_time`, OpenTelemetry's `startTime`, `ts`).
const TIME_KEYS = ["timestamp", "created_at", "createdAt", "time", "start_time", "startTime", "started_at", "startedAt", "ts"];

/** The first time field a message or call carries. */
export function timeOf(fields: Record<string, unknown>): number | undefined {
  for (const key of TIME_KEYS) {
    const at = asTime(fields[key]);
    if (at !== undefined) return at;
  }
  return undefined;
}

/** Tool arguments as given: JSON text is parsed, text that is not JSON stays the raw string. */
export function parseArgs(value: unknown): unknown {
  if (typeof value !== "string") return value ?? {};
  if (value.trim() === "") return {};
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
