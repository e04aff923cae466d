import { Annotation } from "@langchain/langgraph";
import { z } from "zod";
import { parsePolicy, type Policy, type ToolNature } from "../breaker/index.js";
import { defaultModelName } from "../nodes/model/load-chat-model.js";
import { SYSTEM_PROMPT } from "./prompts.js";

/**
 * Runtime configuration, editable per run in Studio. Declared with
 * Annotation.Root so the LangGraph server publishes the context form; values
 * arrive as given, and `parseContext` fills the defaults.
 */
export const ContextAnnotation = Annotation.Root({
  /** "openai:<model>" or "scripted:<scenario>"; empty picks OpenAI when OPENAI_API_KEY is set. */
  model: Annotation<string>,
  /** System prompt for the agent. */
  systemPrompt: Annotation<string>,
  /** Breaker session id; empty uses the thread id. */
  sessionId: Annotation<string>,
  /** Identical calls allowed per run; the next one opens the circuit. */
  maxIdenticalCalls: Annotation<number>,
  /** How many calls before a limit the model is warned (HALF_OPEN). */
  halfOpenMargin: Annotation<number>,
  /** Length of the sliding window for maxCallsPerWindow, in seconds. */
  windowSeconds: Annotation<number>,
  /** Tool calls allowed per session within windowSeconds. */
  maxCallsPerWindow: Annotation<number>,
  /** Tool calls allowed per run (one user turn). */
  maxCallsPerRun: Annotation<number>,
  /** Seconds an open circuit refuses calls. */
  openSeconds: Annotation<number>,
});

// Studio forms send "" for untouched fields and numbers as text.
const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);
const text = (fallback?: string) =>
  z.preprocess(blankToUndefined, fallback === undefined ? z.string().optional() : z.string().default(fallback));
const int = (fallback: number, min: number, max: number) =>
  z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).default(fallback));

/** The context with defaults; parse with `parseContext`. */
export const AgentContextSchema = z.object({
  model: text(),
  systemPrompt: text(SYSTEM_PROMPT),
  sessionId: text(""),
  maxIdenticalCalls: int(3, 1, 100),
  halfOpenMargin: int(1, 0, 100),
  windowSeconds: int(60, 1, 86_400),
  maxCallsPerWindow: int(30, 1, 1_000),
  maxCallsPerRun: int(50, 1, 10_000),
  openSeconds: int(300, 1, 86_400),
});

/** The parsed context: every knob has a value. */
export interface AgentContext {
  model: string;
  systemPrompt: string;
  sessionId: string;
  maxIdenticalCalls: number;
  halfOpenMargin: number;
  windowSeconds: number;
  maxCallsPerWindow: number;
  maxCallsPerRun: number;
  openSeconds: number;
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
  const ctx = parsed.data as Omit<AgentContext, "model"> & { model?: string };
  return { ...ctx, model: ctx.model ?? defaultModelName(env) };
}

/**
 * A complete context from a few overrides, for `invoke` and `stream` in code
 * (their types want every field; the server and Studio accept partial JSON).
 */
export function runContext(overrides: Partial<AgentContext> = {}, env: NodeJS.ProcessEnv = process.env): AgentContext {
  return parseContext(overrides, env);
}

const levels = (block: number, margin: number) => ({ block, warn: Math.max(1, block - margin) });

/** The breaker policy a context asks for, with each tool's declared nature. */
export function policyFromContext(ctx: AgentContext, natures: Record<string, ToolNature>): Policy {
  return parsePolicy({
    detectors: {
      identical_repeat: levels(ctx.maxIdenticalCalls + 1, ctx.halfOpenMargin),
      call_rate: { windowSeconds: ctx.windowSeconds, ...levels(ctx.maxCallsPerWindow, ctx.halfOpenMargin) },
      run_calls: levels(ctx.maxCallsPerRun, ctx.halfOpenMargin),
    },
    openSeconds: ctx.openSeconds,
    windowSize: Math.max(50, ctx.maxCallsPerWindow),
    tools: Object.fromEntries(Object.entries(natures).map(([name, nature]) => [name, { nature }])),
  });
}
