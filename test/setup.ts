// Registers the custom matchers (toHaveNoToolLoops) for every test file.
import { expect } from "vitest";
import { toHaveNoToolLoops } from "../breaker/evaluator/matcher.js";
import type { Policy, PolicyInput } from "../breaker/policy.js";

expect.extend({ toHaveNoToolLoops });

// Augments Matchers, not Assertion: @langchain/core/testing (loaded with `langchain`) augments
// Assertion with other type parameters, and two augmentations of one interface must agree.
declare module "vitest" {
  interface Matchers<T = any> {
    /** Replays a trajectory through the breaker; fails (listing the findings) when the circuit would open. Await it. */
    toHaveNoToolLoops(policy?: PolicyInput | Policy): Promise<T>;
  }
}
