import type { Policy, PolicyInput } from "../policy.js";
import { describeFindings } from "./describe.js";
import { evaluateTrajectory } from "./evaluate.js";

/** The part of a test framework's matcher context this matcher uses (vitest's and jest's both fit). */
export interface MatcherContext {
  isNot: boolean;
}

/** What a custom matcher returns to vitest or jest. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/**
 * Matcher for `await expect(trajectory).toHaveNoToolLoops(policy?)`: passes
 * when replaying the trajectory never opens the breaker; the failure message
 * lists every finding. Register with `expect.extend({ toHaveNoToolLoops })`.
 */
export async function toHaveNoToolLoops(
  this: MatcherContext,
  received: unknown,
  policy?: PolicyInput | Policy,
): Promise<MatcherResult> {
  const result = await evaluateTrajectory(received, policy);
  const name = result.id ? `trajectory "${result.id}"` : "trajectory";
  return {
    pass: result.passed,
    message: () =>
      result.passed
        ? `expected ${name} to trip the circuit breaker, but it ran ${result.calls} calls without opening it (score ${result.score}).\n${describeFindings(result.findings)}`
        : `expected ${name} to have no tool loops, but the breaker opened at step ${result.trippedAtStep}:\n${describeFindings(result.findings)}`,
  };
}
