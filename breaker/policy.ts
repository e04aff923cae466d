import { z } from "zod";
import { BreakerError } from "./errors.js";
import type { ToolNature } from "./types.js";

const count = z.number().int().min(1);

/** A detector's levels: at `warn` the circuit goes HALF_OPEN, at `block` OPEN. */
function levels(warn: number, block: number) {
  return z
    .object({ warn: count.default(warn), block: count.default(block) })
    .refine((l) => l.warn <= l.block, { message: "warn must not exceed block" });
}

/** Thresholds of every detector. Counts include the call being checked. */
export const DetectorsSchema = z.object({
  /** Identical calls (same tool, same canonical arguments) in the run with no progress between them. */
  identical_repeat: z
    .object({
      warn: count.default(3),
      block: count.default(4),
      /** When a call's outcome differs from the previous identical call's, the count restarts. */
      resetOnProgress: z.boolean().default(true),
    })
    .refine((l) => l.warn <= l.block, { message: "warn must not exceed block" })
    .prefault({}),
  /** Calls in the session within a sliding time window. */
  call_rate: z
    .object({
      windowSeconds: z.number().positive().default(60),
      warn: count.default(24),
      block: count.default(30),
    })
    .refine((l) => l.warn <= l.block, { message: "warn must not exceed block" })
    .prefault({}),
  /** Calls in one run (one user turn). */
  run_calls: levels(40, 50).prefault({}),
});

export type DetectorsPolicy = z.infer<typeof DetectorsSchema>;

const DetectorOverridesSchema = z
  .object({
    identical_repeat: z
      .object({ warn: count, block: count, resetOnProgress: z.boolean() })
      .partial(),
    call_rate: z.object({ windowSeconds: z.number().positive(), warn: count, block: count }).partial(),
    run_calls: z.object({ warn: count, block: count }).partial(),
  })
  .partial();

/** Per-detector overrides, as a tool nature or a single tool declares them. */
export type DetectorOverrides = z.infer<typeof DetectorOverridesSchema>;

const NatureSchema = z.enum(["read_only", "side_effecting", "pagination", "polling"]);

/** The breaker's whole configuration: detector levels, how long OPEN lasts, what the store keeps. */
export const PolicySchema = z.object({
  detectors: DetectorsSchema.prefault({}),
  /** Seconds an OPEN circuit refuses calls before the loop detectors get a fresh window. */
  openSeconds: z.number().positive().default(300),
  /** Most recent calls kept per session; detection cost is bounded by it. */
  windowSize: z.number().int().min(4).max(1_000).default(50),
  /** Idle seconds after which a session is forgotten. */
  ttlSeconds: z.number().int().positive().default(86_400),
  /** Dollars per million tokens by model name; "*" prices any model not listed. */
  prices: z
    .record(z.string(), z.object({ input: z.number().min(0), output: z.number().min(0) }))
    .default({ "*": { input: 3, output: 15 } }),
  /** Overrides by tool nature. */
  natures: z.partialRecord(NatureSchema, DetectorOverridesSchema).default({
    // Polling repeats one call by design; give it room before calling it stuck.
    polling: { identical_repeat: { warn: 6, block: 8 } },
    // Sending the same e-mail twice is the harm itself: no second identical call.
    side_effecting: { identical_repeat: { warn: 2, block: 2, resetOnProgress: false } },
  }),
  /** Per-tool settings: a nature and overrides that win over the nature's. */
  tools: z
    .record(
      z.string(),
      z.object({ nature: NatureSchema.optional(), detectors: DetectorOverridesSchema.optional() }),
    )
    .default({}),
});

/** A validated policy with every default filled in. */
export type Policy = z.infer<typeof PolicySchema>;
/** What callers may pass: any subset of the policy. */
export type PolicyInput = z.input<typeof PolicySchema>;

/** Validate a policy and fill its defaults; throws a BreakerError naming the bad field. */
export function parsePolicy(input: unknown = {}): Policy {
  const parsed = PolicySchema.safeParse(input ?? {});
  if (parsed.success) {
    const size = parsed.data.windowSize;
    if (parsed.data.detectors.call_rate.block > size) {
      throw new BreakerError(
        "INVALID_POLICY",
        `Invalid breaker policy: detectors.call_rate.block (${parsed.data.detectors.call_rate.block}) cannot exceed windowSize (${size}), the window could never hold that many calls.`,
      );
    }
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join(".") : "policy";
  throw new BreakerError("INVALID_POLICY", `Invalid breaker policy at ${where}: ${issue?.message ?? "invalid"}.`);
}

/** The default policy. */
export const DEFAULT_POLICY: Policy = parsePolicy({});

const resolved = new WeakMap<Policy, Map<string, DetectorsPolicy>>();

function merge(base: DetectorsPolicy, over: DetectorOverrides | undefined): DetectorsPolicy {
  if (!over) return base;
  const out = { ...base } as Record<string, object>;
  for (const [id, patch] of Object.entries(over)) {
    if (patch) out[id] = { ...(out[id] ?? {}), ...patch };
  }
  return out as DetectorsPolicy;
}

/** The nature a policy gives a tool, if any. */
export function natureOf(policy: Policy, tool: string): ToolNature | undefined {
  return policy.tools[tool]?.nature;
}

/** Detector levels for one tool: defaults, then its nature's overrides, then its own. Cached. */
export function detectorsFor(policy: Policy, tool: string): DetectorsPolicy {
  let cache = resolved.get(policy);
  if (!cache) resolved.set(policy, (cache = new Map()));
  let levels = cache.get(tool);
  if (!levels) {
    const nature = natureOf(policy, tool);
    levels = merge(merge(policy.detectors, nature && policy.natures[nature]), policy.tools[tool]?.detectors);
    cache.set(tool, levels);
  }
  return levels;
}
