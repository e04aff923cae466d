import { Annotation } from "@langchain/langgraph";
import { z } from "zod";
import { DEFAULT_POLICY, parsePolicy, type Policy, type ToolNature } from "../breaker/index.js";
import { defaultModelName } from "../nodes/model/load-chat-model.js";
import { SYSTEM_PROMPT } from "./prompts.js";

/**
 * Runtime configuration, editable per run in Studio. Declared with
 * Annotation.Root so the LangGraph server publishes the context form; values
 * arrive as given, and `parseContext` fills the defaults. A limit left empty
 * keeps the breaker policy's default (docs/DETECTORS.md).
 */
export const ContextAnnotation = Annotation.Root({
  /** "openai:<model>" or "scripted:<scenario>"; empty picks OpenAI when OPENAI_API_KEY is set. */
  model: Annotation<string>,
  /** System prompt for the agent. */
  systemPrompt: Annotation<string>,
  /** Breaker session id; empty uses the thread id. */
  sessionId: Annotation<string>,
  /** Identical calls allowed per run while they bring nothing new; the next one opens the circuit. */
  maxIdenticalCalls: Annotation<number | undefined>,
  /** How many calls before a limit the model is warned (HALF_OPEN). */
  halfOpenMargin: Annotation<number | undefined>,
  /** Length of the sliding window for maxCallsPerWindow, in seconds. */
  windowSeconds: Annotation<number | undefined>,
  /** Tool calls allowed per session within windowSeconds. */
  maxCallsPerWindow: Annotation<number | undefined>,
  /** Tool calls allowed per run (one user turn). */
  maxCallsPerRun: Annotation<number | undefined>,
  /** Seconds an open circuit refuses calls. */
  openSeconds: Annotation<number | undefined>,
});

// Studio forms send "" for untouched fields and numbers as text.
const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);
const text = (fallback?: string) =>
  z.preprocess(blankToUndefined, fallback === undefined ? z.string().optional() : z.string().default(fallback));
// Limit knobs have no default here: unset means the breaker policy's default,
// so the graph and the offline evaluator judge with the same policy.
const knob = (min: number, max: number) => z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).optional());

/** The context schema; parse with `parseContext`. */
export const AgentContextSchema = z.object({
  model: text(),
  systemPrompt: text(SYSTEM_PROMPT),
  sessionId: text(""),
  maxIdenticalCalls: knob(1, 100),
  halfOpenMargin: knob(0, 100),
  windowSeconds: knob(1, 86_400),
  maxCallsPerWindow: knob(1, 1_000),
  maxCallsPerRun: knob(1, 10_000),
  openSeconds: knob(1, 86_400),
});

/** The parsed context: text fields filled, limit knobs set only where the run overrides the policy. */
export interface AgentContext {
  model: string;
  systemPrompt: string;
  sessionId: string;
  maxIdenticalCalls: number | undefined;
  halfOpenMargin: number | undefined;
  windowSeconds: number | undefined;
  maxCallsPerWindow: number | undefined;
  maxCallsPerRun: number | undefined;
  openSeconds: number | undefined;
}

/** Thrown for a context value that cannot be used, naming the field. */
export class InvalidContextError extends Error {
  override readonly name = "InvalidContextError";
}

/** Fill the context's defaults (LangGraph does not) and reject values that cannot work. */
export function parseContext(raw: unknown, env: NodeJS.ProcessEnv = process.env): AgentContext {
  const parsed = AgentContextSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidContextError(`Invalid context field "${issue?.path.join(".")}": ${issue?.message}.`);
  }
  const c = parsed.data as Partial<AgentContext>;
  return {
    model: c.model ?? defaultModelName(env),
    systemPrompt: c.systemPrompt ?? SYSTEM_PROMPT,
    sessionId: c.sessionId ?? "",
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

type Levels = { warn: number; block: number };

/**
 * New levels for a detector the context controls, or undefined to keep the
 * policy's. A warning needs at least `floor` calls to mean anything (a repeat
 * takes two) and never comes after the block.
 */
function levels(ctx: AgentContext, base: Levels, block: number | undefined, floor = 1): Levels | undefined {
  if (block === undefined && ctx.halfOpenMargin === undefined) return undefined;
  const b = block ?? base.block;
  const margin = ctx.halfOpenMargin ?? base.block - base.warn;
  return { block: b, warn: Math.min(b, Math.max(floor, b - margin)) };
}

/** The breaker policy a run asks for: the default policy, the context's overrides, each tool's nature. */
export function policyFromContext(ctx: AgentContext, natures: Record<string, ToolNature>): Policy {
  const d = DEFAULT_POLICY.detectors;
  const repeats = ctx.maxIdenticalCalls === undefined ? undefined : ctx.maxIdenticalCalls + 1;
  const perWindow = ctx.maxCallsPerWindow ?? d.call_rate.block;
  return parsePolicy({
    detectors: {
      identical_repeat: levels(ctx, d.identical_repeat, repeats, 2),
      // The same call bringing nothing new is an identical repeat too: one knob for both.
      no_progress: levels(ctx, d.no_progress, repeats, 2),
      call_rate: { windowSeconds: ctx.windowSeconds ?? d.call_rate.windowSeconds, ...levels(ctx, d.call_rate, ctx.maxCallsPerWindow) },
      run_calls: levels(ctx, d.run_calls, ctx.maxCallsPerRun),
    },
    ...(ctx.openSeconds === undefined ? {} : { openSeconds: ctx.openSeconds }),
    windowSize: Math.max(DEFAULT_POLICY.windowSize, perWindow),
    tools: Object.fromEntries(Object.entries(natures).map(([name, nature]) => [name, { nature }])),
  });
}
