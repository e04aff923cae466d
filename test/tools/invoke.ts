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

/**
 * Every page of a pager: calls `fetch` with the cursor, starting at `first`,
 * until `next` says there is none. Caps at 20 pages so a broken pager fails
 * the test instead of hanging.
 */
export async function followPages<P, C>(first: C, fetch: (cursor: C) => Promise<P>, next: (page: P) => C | null): Promise<P[]> {
  const pages: P[] = [];
  let cursor: C | null = first;
  while (cursor !== null && pages.length < 20) {
    const page: P = await fetch(cursor);
    pages.push(page);
    cursor = next(page);
  }
  return pages;
}
