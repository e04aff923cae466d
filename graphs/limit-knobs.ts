import { parsePolicy, type Policy } from "../breaker/index.js";
import type { LimitField } from "./context-field.js";
import { CONTEXT_SPEC, type ContextFieldName } from "./context-spec.js";

/** The name of a context field that is a breaker limit. */
export type LimitKnob = { [K in ContextFieldName]: (typeof CONTEXT_SPEC)[K] extends LimitField ? K : never }[ContextFieldName];

/** The breaker limits a run's context (and the operator's environment) can set, by their context names, in declaration order. */
export const LIMIT_KNOBS = (Object.keys(CONTEXT_SPEC) as ContextFieldName[]).filter((name) => CONTEXT_SPEC[name].kind === "limit") as LimitKnob[];

/** How a limit knob is declared (bound, minimum, policy field). */
export function knobSpec(knob: LimitKnob): LimitField {
  return CONTEXT_SPEC[knob];
}

/** Values for some of the knobs; a knob left out keeps the policy's level. */
export type Knobs = Partial<Record<LimitKnob, number | undefined>>;

/** The environment variable that sets a knob for the deployment: BREAKER_MAX_CALLS_PER_RUN for maxCallsPerRun, and so on. */
export function knobVariable(knob: LimitKnob): string {
  return `BREAKER_${knob.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** A knob with a ceiling or a floor in the policy (every one but the warning-only halfOpenMargin). */
export type BoundedKnob = { [K in LimitKnob]: (typeof CONTEXT_SPEC)[K] extends { inPolicy(policy: Policy): number } ? K : never }[LimitKnob];

/** The value each bounded knob has in a policy: the ceiling (or floor) a run's context is held to. */
export function knobLimits(policy: Policy): Record<BoundedKnob, number> {
  const limits: Partial<Record<LimitKnob, number>> = {};
  for (const knob of LIMIT_KNOBS) {
    const value = knobSpec(knob).inPolicy?.(policy);
    if (value !== undefined) limits[knob] = value;
  }
  return limits as Record<BoundedKnob, number>;
}

type Levels = { warn: number; block: number };

/**
 * New levels for a detector a knob controls, or undefined to keep the
 * policy's. Without a margin, the policy's warning zone scales with the new
 * block (a run limit of 20 under a policy that warns 20 calls before 100 is
 * warned 4 before). A warning needs at least `floor` calls to mean anything
 * (a repeat takes two) and never comes after the block.
 */
function levels(base: Levels, block: number | undefined, margin: number | undefined, floor = 1): Levels | undefined {
  if (block === undefined && margin === undefined) return undefined;
  const b = block ?? base.block;
  const m = margin ?? Math.round(((base.block - base.warn) * b) / base.block);
  return { block: b, warn: Math.min(b, Math.max(floor, b - m)) };
}

/**
 * The policy with the knobs applied. "set" (the operator's environment)
 * takes each value as given; "tighten" (a run's context) never lets a
 * detector block later, or a duration run shorter, than in `base`: one knob
 * drives several detectors, and none of them may loosen. Callers check the
 * ceilings first (knobLimits) so a loosening request is refused, not ignored.
 */
export function applyKnobs(base: Policy, knobs: Knobs, mode: "set" | "tighten"): Policy {
  const d = base.detectors;
  const tight = mode === "tighten";
  const lower = (policyValue: number, wanted: number | undefined) =>
    wanted === undefined ? undefined : tight ? Math.min(policyValue, wanted) : wanted;
  const higher = (policyValue: number, wanted: number | undefined) =>
    wanted === undefined ? policyValue : tight ? Math.max(policyValue, wanted) : wanted;
  const repeats = knobs.maxIdenticalCalls === undefined ? undefined : knobs.maxIdenticalCalls + 1;
  const margin = knobs.halfOpenMargin;
  const callRate = levels(d.call_rate, lower(d.call_rate.block, knobs.maxCallsPerWindow), margin);
  return parsePolicy({
    ...base,
    detectors: {
      ...d,
      identical_repeat: { ...d.identical_repeat, ...levels(d.identical_repeat, lower(d.identical_repeat.block, repeats), margin, 2) },
      // The same call bringing nothing new is an identical repeat too, and so is a retry: one knob for all three.
      no_progress: { ...d.no_progress, ...levels(d.no_progress, lower(d.no_progress.block, repeats), margin, 2) },
      transient_retries: { ...d.transient_retries, ...levels(d.transient_retries, lower(d.transient_retries.block, repeats), margin, 2) },
      call_rate: { ...d.call_rate, ...callRate, windowSeconds: higher(d.call_rate.windowSeconds, knobs.windowSeconds) },
      run_calls: { ...d.run_calls, ...levels(d.run_calls, lower(d.run_calls.block, knobs.maxCallsPerRun), margin) },
    },
    openSeconds: higher(base.openSeconds, knobs.openSeconds),
    // The window must hold a whole rate window's calls.
    windowSize: Math.max(base.windowSize, callRate?.block ?? d.call_rate.block),
  });
}

/** True when no knob is set. */
export function noKnobs(knobs: Knobs): boolean {
  return LIMIT_KNOBS.every((k) => knobs[k] === undefined);
}
