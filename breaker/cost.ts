import type { Policy } from "./policy.js";
import type { TokenUsage, UsageTotals } from "./types.js";

function tokens(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Spend of one model turn, priced by the policy's table (micro-dollars, so stores add integers). */
export function priceUsage(usage: TokenUsage | undefined, policy: Policy): UsageTotals | undefined {
  if (!usage) return undefined;
  const inputTokens = tokens(usage.inputTokens);
  const outputTokens = tokens(usage.outputTokens);
  // Own keys only: a model named "constructor" or "__proto__" must not price itself with Object's members (NaN).
  const own = typeof usage.model === "string" && Object.hasOwn(policy.prices, usage.model) ? policy.prices[usage.model] : undefined;
  const price = own ?? policy.prices["*"] ?? { input: 0, output: 0 };
  const costMicros = Math.round(inputTokens * price.input + outputTokens * price.output);
  return { inputTokens, outputTokens, costMicros };
}
