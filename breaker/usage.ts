import { asCount, asRecord, asString } from "./evaluator/fields.js";
import type { TokenUsage } from "./types.js";

// Token counts under the names OpenAI, LangChain and others use.
function counts(source: Record<string, unknown> | undefined): { input: number; output: number } | undefined {
  if (!source) return undefined;
  const input = asCount(source.input_tokens) ?? asCount(source.prompt_tokens) ?? asCount(source.promptTokens) ?? asCount(source.inputTokens);
  const output =
    asCount(source.output_tokens) ?? asCount(source.completion_tokens) ?? asCount(source.completionTokens) ?? asCount(source.outputTokens);
  return input === undefined && output === undefined ? undefined : { input: input ?? 0, output: output ?? 0 };
}

/**
 * Token usage a model message reports, read the same way at runtime (the
 * graph, the middleware) and offline (the evaluator): LangChain `usage_metadata`, OpenAI
 * `usage`, or `response_metadata` (`tokenUsage`, `usage`, `token_usage`); the
 * model name from `response_metadata.model_name` / `model`.
 */
export function usageOf(fields: Record<string, unknown>): TokenUsage | undefined {
  const meta = asRecord(fields.response_metadata);
  const found =
    counts(asRecord(fields.usage_metadata)) ??
    counts(asRecord(fields.usage)) ??
    counts(asRecord(meta?.tokenUsage)) ??
    counts(asRecord(meta?.usage)) ??
    counts(asRecord(meta?.token_usage));
  if (!found) return undefined;
  const model = asString(meta?.model_name) ?? asString(meta?.model) ?? asString(fields.model);
  return { inputTokens: found.input, outputTokens: found.output, ...(model ? { model } : {}) };
}

/** Two usages added up (a model turn without calls is billed to the next call). */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a || !b) return a ?? b;
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, model: b.model ?? a.model };
}
