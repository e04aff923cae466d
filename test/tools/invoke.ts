import type { StructuredToolInterface } from "@langchain/core/tools";

/** Invoke a tool with plain arguments (schema-validated by LangChain) and type its output for assertions. */
export async function run<T = any>(tool: StructuredToolInterface, args: Record<string, unknown>): Promise<T> {
  return (await tool.invoke(args)) as T;
}

/** A tool output without its volatile `checked_at`, for comparing polls. */
export function stable(output: Record<string, unknown>): Record<string, unknown> {
  const { checked_at: _ignored, ...rest } = output;
  return rest;
}

/** The error message LangChain throws when arguments fail the tool's schema. */
export const SCHEMA_REJECTION = /did not match expected schema/;
