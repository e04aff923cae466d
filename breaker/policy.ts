import { z } from "zod";
import { BoundedCache } from "./bounded-cache.js";
import { BreakerError } from "./errors.js";
import type { ToolNature } from "./types.js";

const count = z.number().int().min(1);
const positive = z.number().positive();
const warnBeforeBlock = (l: { warn: number; block: number }) => l.warn <= l.block;
const WARN_NOT_ABOVE_BLOCK = { message: "warn must not exceed block" };

/** Thresholds of every detector. Counts include the call being checked. */
export const DetectorsSchema = z.object({
  /** Identical calls (same tool, same canonical arguments) in the run with no progress between them. */
  identical_repeat: z
    .object({
      warn: count.default(2),
      block: count.default(3),
      /** When a call's outcome differs from the previous identical call's, the count restarts; false counts every identical call that did not fail. */
      resetOnProgress: z.boolean().default(true),
    })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** Calls whose arguments differ only cosmetically (case, suffixes, typos, a drifting offset) that keep bringing nothing new. */
  semantic_stutter: z
    .object({
      warn: count.default(2),
      block: count.default(3),
      /** Least similarity (0..1) of every argument value for two calls to count as one request. */
      similarity: z.number().min(0).max(1).default(0.7),
      /** False counts every call of the family that did not fail, whatever it returned (side effects: each one done is the harm). */
      resetOnProgress: z.boolean().default(true),
    })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /**
   * Pages a pager (a `pagination` tool) fetched again, the same query at the same cursor, page or
   * offset, with the same records and nothing new done elsewhere in between; the candidate counts.
   */
  page_revisit: z
    .object({ warn: count.default(1), block: count.default(2) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** The same call returning nothing new (empty, error, or its previous result) again and again. */
  no_progress: z
    .object({ warn: count.default(2), block: count.default(3) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** Attempts at one request while every failure was transient (rate limit, 5xx, timeout) or came back after a change (an edit before the test runs again): retries earn room. */
  transient_retries: z
    .object({ warn: count.default(4), block: count.default(5) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /**
   * Seconds a poll may keep returning the same unfinished status (a job still running) before it is stuck;
   * a slow poll gets `intervals` times its usual interval when that is longer.
   */
  stuck_poll: z
    .object({ warn: positive.default(240), block: positive.default(300), intervals: count.default(20) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** Distinct requests to one tool in a row that all came back empty or failing. */
  flailing: z
    .object({ warn: count.default(5), block: count.default(6) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /**
   * Calls in a row refused with the same answer whatever tool they named ("Unknown tool: X"), to tools
   * that have not worked in the run, the candidate included: the model is guessing tool names.
   */
  refused_tools: z
    .object({ warn: count.default(2), block: count.default(3) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** User turns in which the same call has failed or come back empty, since it last worked (session-wide). */
  session_repeat: z
    .object({ warn: count.default(3), block: count.default(4) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** A sequence of 2..maxPeriod calls repeating with the same results; counts the calls that repeat an earlier turn. */
  cycle: z
    .object({
      warn: count.default(2),
      block: count.default(3),
      maxPeriod: z.number().int().min(2).max(10).default(8),
    })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /**
   * Failures of one tool stating the same cause (`SyntaxError: ...`, `error[E0405]: ...`) through programs
   * written differently, since the cause last changed or the failing check last passed; the candidate counts.
   */
  same_failure: z
    .object({ warn: count.default(4), block: count.default(5) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** Consecutive failing calls in the run, whatever their arguments; the candidate counts. */
  error_flood: z
    .object({ warn: count.default(5), block: count.default(6) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** Calls in the session within a sliding time window. */
  call_rate: z
    .object({
      windowSeconds: positive.default(60),
      warn: count.default(40),
      block: count.default(50),
    })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /**
   * Calls in one run (one user turn): a ceiling for a model that never repeats
   * itself, above what long productive runs take (mini-swe-agent's SWE-bench
   * runs stop at 250 steps; its recorded runs reach 190).
   */
  run_calls: z
    .object({ warn: count.default(200), block: count.default(250) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** Input plus output tokens of the session's model turns. */
  token_budget: z
    .object({ warn: count.default(400_000), block: count.default(500_000) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
  /** Dollars the session's model turns cost, priced with `prices`. */
  cost_budget: z
    .object({ warn: positive.default(1), block: positive.default(1.5) })
    .refine(warnBeforeBlock, WARN_NOT_ABOVE_BLOCK)
    .prefault({}),
});

export type DetectorsPolicy = z.infer<typeof DetectorsSchema>;

// Overrides: the same fields, every one optional, no defaults (a patch, not a policy).
const DetectorOverridesSchema = z
  .object({
    identical_repeat: z.object({ warn: count, block: count, resetOnProgress: z.boolean() }).partial(),
    semantic_stutter: z
      .object({ warn: count, block: count, similarity: z.number().min(0).max(1), resetOnProgress: z.boolean() })
      .partial(),
    no_progress: z.object({ warn: count, block: count }).partial(),
    page_revisit: z.object({ warn: count, block: count }).partial(),
    transient_retries: z.object({ warn: count, block: count }).partial(),
    stuck_poll: z.object({ warn: positive, block: positive, intervals: count }).partial(),
    flailing: z.object({ warn: count, block: count }).partial(),
    refused_tools: z.object({ warn: count, block: count }).partial(),
    session_repeat: z.object({ warn: count, block: count }).partial(),
    cycle: z.object({ warn: count, block: count, maxPeriod: z.number().int().min(2).max(10) }).partial(),
    same_failure: z.object({ warn: count, block: count }).partial(),
    error_flood: z.object({ warn: count, block: count }).partial(),
    call_rate: z.object({ windowSeconds: positive, warn: count, block: count }).partial(),
    run_calls: z.object({ warn: count, block: count }).partial(),
    token_budget: z.object({ warn: count, block: count }).partial(),
    cost_budget: z.object({ warn: positive, block: positive }).partial(),
  })
  .partial();

/** Per-detector overrides, as a tool nature or a single tool declares them. */
export type DetectorOverrides = z.infer<typeof DetectorOverridesSchema>;

const NatureSchema = z.enum(["read_only", "side_effecting", "pagination", "polling"]);

/** Levels each nature gets by default; a policy's `natures` replaces this table. */
export const DEFAULT_NATURES: Partial<Record<ToolNature, DetectorOverrides>> = {
  // Polling needs no levels of its own: a polling tool's unchanged answers are judged by stuck_poll's time budget.
  // Sending the same e-mail twice is the harm itself: no second identical or near-identical call.
  side_effecting: {
    identical_repeat: { warn: 2, block: 2, resetOnProgress: false },
    semantic_stutter: { warn: 2, block: 2, resetOnProgress: false },
  },
};

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
  natures: z.partialRecord(NatureSchema, DetectorOverridesSchema).default(DEFAULT_NATURES),
  /**
   * A tool with no declared nature whose identical call has returned a changed
   * result earlier in the run is being watched, not stuck: give it the polling levels.
   */
  inferPolling: z.boolean().default(true),
  /**
   * A tool with no declared nature named for an act on the outside world
   * (`send_message`, `issue_refund`, `log_out`) gets the side-effecting levels.
   */
  inferSideEffects: z.boolean().default(true),
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

// Per policy, the levels each tool resolved to. Bounded: tool names come from the model, which can invent any.
const MAX_RESOLVED_TOOLS = 1_024;
const resolved = new WeakMap<Policy, BoundedCache<string, DetectorsPolicy>>();

function merge(base: DetectorsPolicy, over: DetectorOverrides | undefined): DetectorsPolicy {
  if (!over) return base;
  const out = { ...base } as Record<string, object>;
  for (const [id, patch] of Object.entries(over)) {
    if (!patch) continue;
    const next = { ...(out[id] ?? {}), ...patch } as { warn?: number; block?: number };
    // A patch that lowers only `block` keeps the warning at or before it.
    if (next.warn !== undefined && next.block !== undefined && next.warn > next.block) next.warn = next.block;
    out[id] = next;
  }
  return out as DetectorsPolicy;
}

/** The nature a policy gives a tool, if any. */
export function natureOf(policy: Policy, tool: string): ToolNature | undefined {
  return policy.tools[tool]?.nature;
}

/**
 * Detector levels for one tool: defaults, then its nature's overrides, then
 * its own. `observed` is a nature inferred from behaviour, used only when the
 * policy declares none for the tool. Cached.
 */
export function detectorsFor(policy: Policy, tool: string, observed?: ToolNature): DetectorsPolicy {
  let cache = resolved.get(policy);
  if (!cache) resolved.set(policy, (cache = new BoundedCache(MAX_RESOLVED_TOOLS)));
  const declared = natureOf(policy, tool);
  const nature = declared ?? observed;
  const key = declared || !observed ? tool : `${tool}\u0000${observed}`;
  let found = cache.get(key);
  if (!found) {
    found = merge(merge(policy.detectors, nature && policy.natures[nature]), policy.tools[tool]?.detectors);
    cache.set(key, found);
  }
  return found;
}

/** What a tool declares about itself (with `defineTool`): its nature, and how long a poll of it may wait unchanged. */
export interface ToolDeclaration {
  nature?: ToolNature;
  /** Seconds a poll of this tool may keep returning the same unfinished status before it is stuck. */
  pollSeconds?: number;
}

/**
 * The policy with what the tools declare, wherever the policy says nothing
 * of its own for that tool: a declared nature when it gives none, a declared
 * poll budget when it sets no `stuck_poll` levels. The policy itself when
 * there is nothing to add.
 */
export function withToolDeclarations(policy: Policy, declarations: Readonly<Record<string, ToolDeclaration>>): Policy {
  const tools = { ...policy.tools };
  let changed = false;
  for (const [name, declared] of Object.entries(declarations)) {
    const own = policy.tools[name];
    const next = { ...own };
    if (declared.nature && !own?.nature) next.nature = declared.nature;
    if (declared.pollSeconds && !own?.detectors?.stuck_poll) {
      const block = declared.pollSeconds;
      next.detectors = { ...own?.detectors, stuck_poll: { block, warn: block * 0.8 } };
    }
    if (next.nature !== own?.nature || next.detectors !== own?.detectors) {
      tools[name] = next;
      changed = true;
    }
  }
  return changed ? parsePolicy({ ...policy, tools }) : policy;
}
