import { Annotation } from "@langchain/langgraph";
import { z } from "zod";
import { defaultModelName } from "../nodes/model/load-chat-model.js";
import { ON_TRIP_CHOICES, type OnTrip } from "../nodes/route.js";
import { LIMIT_KNOBS, type LimitKnob } from "./limit-knobs.js";
import { SYSTEM_PROMPT } from "./prompts.js";

/**
 * Runtime configuration, editable per run in Studio. Declared with
 * Annotation.Root so the LangGraph server publishes the context form; values
 * arrive as given, and `parseContext` fills the defaults. A limit left empty
 * keeps the deployment's policy; a limit set may only tighten it
 * (docs/DEPLOYMENT.md, "What a caller can and cannot change").
 */
export const ContextAnnotation = Annotation.Root({
  /** "openai:<model>" or "scripted:<scenario>"; empty picks OpenAI when OPENAI_API_KEY is set. */
  model: Annotation<string>,
  /** System prompt for the agent. */
  systemPrompt: Annotation<string>,
  /** Breaker session shared by several threads; accepted only when the operator sets BREAKER_CALLER_SESSIONS=true. */
  sessionId: Annotation<string>,
  /** What a trip does: "end" (default) answers and ends the run; "ask" pauses it with interrupt() for a person to stop or continue. */
  onTrip: Annotation<OnTrip>,
  /** Identical calls allowed per run while they bring nothing new; the next one opens the circuit. At most the deployment's. */
  maxIdenticalCalls: Annotation<number | undefined>,
  /** How many calls before a limit the model is warned (HALF_OPEN). Moves warnings only. */
  halfOpenMargin: Annotation<number | undefined>,
  /** Length of the sliding window for maxCallsPerWindow, in seconds. At least the deployment's. */
  windowSeconds: Annotation<number | undefined>,
  /** Tool calls allowed per session within windowSeconds. At most the deployment's. */
  maxCallsPerWindow: Annotation<number | undefined>,
  /** Tool calls allowed per run (one user turn). At most the deployment's. */
  maxCallsPerRun: Annotation<number | undefined>,
  /** Seconds an open circuit refuses calls. At least the deployment's. */
  openSeconds: Annotation<number | undefined>,
});

/** The parsed context: text fields filled, limit knobs set only where the run asks for them. */
export interface AgentContext extends Record<LimitKnob, number | undefined> {
  model: string;
  systemPrompt: string;
  /** The caller's session name, "" when none (the thread is the session). */
  sessionId: string;
  /** What a trip does: end the run, or ask a person (interrupt). */
  onTrip: OnTrip;
}

/** Every field a run's context may carry. */
export const CONTEXT_FIELDS: readonly (keyof AgentContext)[] = ["model", "systemPrompt", "sessionId", "onTrip", ...LIMIT_KNOBS];

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

// Studio forms send "" for untouched fields and numbers as text.
const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);
const text = () => z.preprocess(blankToUndefined, z.string({ error: "must be a string" }).optional());
const wholeNumber = (min: number) =>
  z.preprocess(
    (v) => {
      const value = blankToUndefined(v);
      // Numbers typed into a form arrive as text; anything else keeps its type, so the error names it.
      return typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
    },
    z
      .number({ error: "must be a number" })
      .int({ error: "must be a whole number" })
      .min(min, { error: `must be at least ${min}` })
      .optional(),
  );

/** The context schema: types and lower bounds only; the deployment's ceilings are checked against its policy. */
export const AgentContextSchema = z.object({
  model: text(),
  systemPrompt: text(),
  sessionId: text(),
  onTrip: z.preprocess(
    blankToUndefined,
    z.enum(ON_TRIP_CHOICES, { error: `must be one of ${ON_TRIP_CHOICES.map((c) => `"${c}"`).join(", ")}` }).optional(),
  ),
  maxIdenticalCalls: wholeNumber(1),
  halfOpenMargin: wholeNumber(0),
  windowSeconds: wholeNumber(1),
  maxCallsPerWindow: wholeNumber(1),
  maxCallsPerRun: wholeNumber(1),
  openSeconds: wholeNumber(1),
});

const KNOWN = new Set<string>(CONTEXT_FIELDS);

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

/**
 * Read a run's context: refuse unknown fields (a misspelled knob would
 * otherwise be ignored in silence) and values of the wrong type, each naming
 * the field; fill the text defaults (LangGraph does not).
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
  const c = parsed.data;
  return {
    model: c.model ?? defaultModelName(env),
    systemPrompt: c.systemPrompt ?? SYSTEM_PROMPT,
    sessionId: c.sessionId ?? "",
    onTrip: c.onTrip ?? "end",
    maxIdenticalCalls: c.maxIdenticalCalls,
    halfOpenMargin: c.halfOpenMargin,
    windowSeconds: c.windowSeconds,
    maxCallsPerWindow: c.maxCallsPerWindow,
    maxCallsPerRun: c.maxCallsPerRun,
    openSeconds: c.openSeconds,
  };
}

/**
 * A context from a few overrides, typed for `invoke` and `stream` in code
 * (their types list every field; the server and Studio accept partial JSON).
 */
export function runContext(overrides: Partial<AgentContext> = {}, env: NodeJS.ProcessEnv = process.env): AgentContext {
  return parseContext(overrides, env);
}
