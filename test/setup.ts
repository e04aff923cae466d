// Registers the custom matchers (toHaveNoToolLoops) for every test file.
import { expect } from "vitest";
import { toHaveNoToolLoops } from "../breaker/evaluator/matcher.js";
import type { Policy, PolicyInput } from "../breaker/policy.js";

expect.extend({ toHaveNoToolLoops });

declare module "vitest" {
  interface Assertion<T = any> {
    /** Replays a trajectory through the breaker; fails (listing the findings) when the circuit would open. Await it. */
    toHaveNoToolLoops(policy?: PolicyInput | Policy): Promise<T>;
  }
}
