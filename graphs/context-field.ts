import { z } from "zod";
import type { Policy } from "../breaker/index.js";

/**
 * Which way a limit is stricter: a "ceiling" limit is stricter lower (counts),
 * a "floor" limit stricter higher (durations: a shorter rate window or a
 * shorter open circuit lets more calls through); a "warning" limit moves only
 * the HALF_OPEN warning, never a block.
 */
export type LimitBound = "ceiling" | "floor" | "warning";

/** A context field that holds a value of its own: empty, it takes `fill(env)`. */
export interface ValueField<T> {
  kind: "value";
  /** Reads what a caller sent: undefined when the field is empty. */
  schema: z.ZodType<T | undefined>;
  /** The value of an empty field. */
  fill(env: NodeJS.ProcessEnv): T;
  /** What an empty field becomes, in words, for the README. */
  whenEmpty: string;
  /** What a run may set, in words, for the README. */
  runMaySet: string;
}

/** A context field that tightens one of the deployment's breaker limits; empty, the deployment's limit holds. */
export interface LimitField {
  kind: "limit";
  /** Reads what a caller sent: undefined when the field is empty. */
  schema: z.ZodType<number | undefined>;
  /** The smallest value that means anything. */
  min: number;
  bound: LimitBound;
  /** Where the limit lives in the policy, for messages that send an operator to the right field. */
  policyField: string;
  /** The limit's value in a policy: the ceiling (or floor) a run is held to. Absent for a warning-only knob. */
  inPolicy?(policy: Policy): number;
  /** What an empty field becomes, when the policy holds no single value for it. */
  whenEmpty?: string;
}

/** One field of the run context. */
export type ContextField = ValueField<unknown> | LimitField;

/** The value a field has in a parsed context. */
export type FieldValue<F> = F extends ValueField<infer T> ? T : F extends LimitField ? number | undefined : never;

// Studio forms send "" for untouched fields and numbers as text.
const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);

/** A text field; empty, it takes `fill(env)`. */
export function textField(spec: Omit<ValueField<string>, "kind" | "schema">): ValueField<string> {
  return { kind: "value", schema: z.preprocess(blankToUndefined, z.string({ error: "must be a string" }).optional()), ...spec };
}

/** A field that takes one of a few words; empty, it takes `fill(env)`. */
export function choiceField<const T extends string>(values: readonly [T, ...T[]], spec: Omit<ValueField<T>, "kind" | "schema" | "runMaySet">): ValueField<T> {
  const words = values.map((v) => `"${v}"`).join(" or ");
  const schema = z.preprocess(blankToUndefined, z.enum(values, { error: `must be ${words}` }).optional()) as z.ZodType<T | undefined>;
  return { kind: "value", schema, runMaySet: words, ...spec };
}

/** A whole-number breaker limit of at least `min`, bounded by the deployment's policy. */
export function limitField<const S extends Omit<LimitField, "kind" | "schema">>(spec: S): LimitField & S {
  const schema = z.preprocess(
    (v) => {
      const value = blankToUndefined(v);
      // Numbers typed into a form arrive as text; anything else keeps its type, so the error names it.
      return typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
    },
    z
      .number({ error: "must be a number" })
      .int({ error: "must be a whole number" })
      .min(spec.min, { error: `must be at least ${spec.min}` })
      .optional(),
  );
  return { kind: "limit", schema, ...spec };
}
