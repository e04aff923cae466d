import { Annotation, type LastValue } from "@langchain/langgraph";
import { z } from "zod";
import type { ContextField, FieldValue } from "./context-field.js";
import { CONTEXT_SPEC, type ContextFieldName } from "./context-spec.js";

type Spec = typeof CONTEXT_SPEC;

// Mapped over `keyof S` of a type parameter, so each property keeps its
// declaration in CONTEXT_SPEC, doc comment included (Studio's descriptions).
type ValuesOf<S> = { [K in keyof S]: FieldValue<S[K]> };
type ChannelsOf<S> = { [K in keyof S]: LastValue<FieldValue<S[K]>> };

/** The parsed context: value fields filled, limit knobs set only where the run asks for them. */
export type AgentContext = ValuesOf<Spec>;

/** Every field a run's context may carry, in declaration order. */
export const CONTEXT_FIELDS = Object.keys(CONTEXT_SPEC) as ContextFieldName[];

/**
 * Runtime configuration, editable per run in Studio. An Annotation.Root, so
 * the LangGraph server publishes the context form (it reads each field's type
 * and doc comment from CONTEXT_SPEC through this mapped type); values arrive
 * as given, and `parseContext` fills the defaults. A limit left empty keeps
 * the deployment's policy; a limit set may only tighten it
 * (docs/DEPLOYMENT.md, "What a caller can and cannot change").
 */
export const ContextAnnotation = Annotation.Root(
  Object.fromEntries(CONTEXT_FIELDS.map((name) => [name, Annotation()])) as ChannelsOf<Spec>,
);

/** Why a context was refused. */
export type InvalidContextCode =
  | "UNKNOWN_CONTEXT_FIELD"
  | "INVALID_CONTEXT_VALUE"
  | "ABOVE_CEILING"
  | "BELOW_FLOOR"
  | "CALLER_SESSIONS_DISABLED";

/** Thrown for a context a run cannot use; the message names the field and what would be accepted. */
export class InvalidContextError extends Error {
  override readonly name = "InvalidContextError";
  constructor(
    readonly code: InvalidContextCode,
    /** The offending fields, comma-separated when several. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The context schema: types and lower bounds only; the deployment's ceilings are checked against its policy. */
export const AgentContextSchema = z.object(
  Object.fromEntries(CONTEXT_FIELDS.map((name) => [name, CONTEXT_SPEC[name].schema])) as { [K in ContextFieldName]: Spec[K]["schema"] },
);

const KNOWN = new Set<string>(CONTEXT_FIELDS);

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

/**
 * Read a run's context: refuse unknown fields (a misspelled knob would
 * otherwise be ignored in silence) and values of the wrong type, each naming
 * the field; fill the value fields an empty context leaves out (LangGraph does not).
 */
export function parseContext(raw: unknown, env: NodeJS.ProcessEnv = process.env): AgentContext {
  const input = raw ?? {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new InvalidContextError("INVALID_CONTEXT_VALUE", "context", `The run's context must be an object of fields (${CONTEXT_FIELDS.join(", ")}).`);
  }
  const unknown = Object.keys(input).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) {
    const names = unknown.map((k) => `"${k}"`).join(", ");
    throw new InvalidContextError(
      "UNKNOWN_CONTEXT_FIELD",
      unknown.join(","),
      `Unknown context field${unknown.length > 1 ? "s" : ""} ${names}. This graph accepts: ${CONTEXT_FIELDS.join(", ")}.`,
    );
  }
  const parsed = AgentContextSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "context");
    const got = describe((input as Record<string, unknown>)[field]);
    throw new InvalidContextError("INVALID_CONTEXT_VALUE", field, `Context field "${field}" ${issue?.message ?? "is invalid"} (got ${got}).`);
  }
  const values: Record<string, unknown> = {};
  for (const name of CONTEXT_FIELDS) {
    const field: ContextField = CONTEXT_SPEC[name];
    const given = (parsed.data as Record<string, unknown>)[name];
    values[name] = given === undefined && field.kind === "value" ? field.fill(env) : given;
  }
  return values as AgentContext;
}

/**
 * A context from a few overrides, typed for `invoke` and `stream` in code
 * (their types list every field; the server and Studio accept partial JSON).
 */
export function runContext(overrides: Partial<AgentContext> = {}, env: NodeJS.ProcessEnv = process.env): AgentContext {
  return parseContext(overrides, env);
}
