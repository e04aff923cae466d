import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import type { z } from "zod";
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
}

/** Default per-call timeout of a tool. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

/** Define a LangChain tool that carries its nature and timeout in its metadata. */
export function defineTool<S extends z.ZodObject>(
  spec: ToolSpec<S>,
  fn: (input: z.output<S>) => unknown | Promise<unknown>,
): StructuredToolInterface {
  return tool(async (input: z.output<S>) => fn(input), {
    name: spec.name,
    description: spec.description,
    schema: spec.schema,
    metadata: { nature: spec.nature, timeoutMs: spec.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS },
  }) as unknown as StructuredToolInterface;
}

/** The nature a tool declares in its metadata (as `defineTool` writes it), or undefined when it declares none. */
export function declaredNature(t: unknown): ToolNature | undefined {
  const nature = (t as { metadata?: Record<string, unknown> } | undefined)?.metadata?.nature;
  return nature === "read_only" || nature === "side_effecting" || nature === "pagination" || nature === "polling"
    ? nature
    : undefined;
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
