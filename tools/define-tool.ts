import { tool, type StructuredToolInterface, type ToolRuntime } from "@langchain/core/tools";
import type { z } from "zod";
import type { ToolDeclaration } from "../breaker/policy.js";
import type { ToolNature } from "../breaker/types.js";

/** What a guarded tool declares beside its schema: its nature, and how long it may run. */
export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  description: string;
  schema: S;
  /** Read-only, side-effecting, pagination or polling: selects the tool's breaker policy. */
  nature: ToolNature;
  /** The tools node turns a call running longer than this into an error result. Default 10 s. */
  timeoutMs?: number;
  /**
   * For a polling tool: seconds a poll may keep returning the same unfinished
   * status before the breaker calls it stuck (default: the policy's stuck_poll budget).
   */
  pollSeconds?: number;
  /**
   * Valid arguments, one object per example: the tests call the tool with
   * each (test/tools/index.test.ts), so a registered tool is exercised without
   * a test of its own. Give at least one.
   */
  examples?: z.input<S>[];
  /** For a tool that keeps per-process state (a poll count, an outbox): forget it, so runs replay the same. */
  reset?: () => void;
}

/**
 * What a tool body gets besides its arguments, as LangChain's ToolNode hands
 * it: `signal` aborts when the run is cancelled or the call times out (pass it
 * to fetch and friends), `toolCallId` is the model's id for this call (a
 * returned Command answers it), plus the graph `state`, `context` and `writer`.
 */
export type GuardedToolRuntime = ToolRuntime;

/** Default per-call timeout of a tool. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

// Reset functions live beside the tools, not in their metadata: tracers serialize metadata, and a function is not data.
const resets = new WeakMap<object, () => void>();

/** Define a LangChain tool that carries its nature, timeout and example arguments in its metadata. */
export function defineTool<S extends z.ZodObject>(
  spec: ToolSpec<S>,
  fn: (input: z.output<S>, runtime: GuardedToolRuntime) => unknown,
): StructuredToolInterface {
  const defined = tool(async (input: z.output<S>, runtime: ToolRuntime) => fn(input, runtime), {
    name: spec.name,
    description: spec.description,
    schema: spec.schema,
    metadata: {
      nature: spec.nature,
      timeoutMs: spec.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      ...(spec.pollSeconds ? { pollSeconds: spec.pollSeconds } : {}),
      ...(spec.examples?.length ? { examples: spec.examples } : {}),
    },
  }) as unknown as StructuredToolInterface;
  if (spec.reset) resets.set(defined, spec.reset);
  return defined;
}

/** The example arguments a tool declared (none for a tool defined elsewhere). */
export function toolExamples(t: StructuredToolInterface): Record<string, unknown>[] {
  const examples = (t as { metadata?: Record<string, unknown> }).metadata?.examples;
  return Array.isArray(examples) ? (examples as Record<string, unknown>[]) : [];
}

/** Forget a tool's per-process state, when it declared any. */
export function resetTool(t: StructuredToolInterface): void {
  resets.get(t)?.();
}

/** The nature a tool declares in its metadata (as `defineTool` writes it), or undefined when it declares none. */
export function declaredNature(t: unknown): ToolNature | undefined {
  const nature = (t as { metadata?: Record<string, unknown> } | undefined)?.metadata?.nature;
  return nature === "read_only" || nature === "side_effecting" || nature === "pagination" || nature === "polling"
    ? nature
    : undefined;
}

/** What a tool declares in its metadata (nature, poll budget), or undefined when it declares nothing. */
export function toolDeclaration(t: unknown): ToolDeclaration | undefined {
  const nature = declaredNature(t);
  const poll = (t as { metadata?: Record<string, unknown> } | undefined)?.metadata?.pollSeconds;
  const pollSeconds = typeof poll === "number" && poll > 0 ? poll : undefined;
  if (!nature && !pollSeconds) return undefined;
  return { ...(nature ? { nature } : {}), ...(pollSeconds ? { pollSeconds } : {}) };
}

/** The nature a tool declared; tools defined elsewhere count as read-only. */
export function toolNature(t: StructuredToolInterface): ToolNature {
  return declaredNature(t) ?? "read_only";
}

/** The timeout a tool declared, or the default. */
export function toolTimeoutMs(t: StructuredToolInterface): number {
  const ms = (t as { metadata?: Record<string, unknown> }).metadata?.timeoutMs;
  return typeof ms === "number" && ms > 0 ? ms : DEFAULT_TOOL_TIMEOUT_MS;
}
