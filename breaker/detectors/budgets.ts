import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";

const number = new Intl.NumberFormat("en-US");

/** The session's model turns used too many tokens (input plus output), the candidate's turn included. */
export const tokenBudget: Detector = {
  id: "token_budget",
  scope: "session",
  detect({ candidate, usage, levels }) {
    const tokens = usage.inputTokens + usage.outputTokens;
    const level = levels.token_budget;
    return findingAt("token_budget", tokens, level, [candidate.step], () =>
      `This session's model turns have used ${number.format(tokens)} tokens (limit ${number.format(level.block)}).`,
    );
  },
};

/** The session's model turns cost too much, priced with the policy's table. */
export const costBudget: Detector = {
  id: "cost_budget",
  scope: "session",
  detect({ candidate, usage, levels }) {
    const dollars = usage.costMicros / 1_000_000;
    const level = levels.cost_budget;
    return findingAt("cost_budget", dollars, level, [candidate.step], () =>
      `This session's model turns have cost $${dollars.toFixed(2)} (limit $${level.block.toFixed(2)}).`,
    );
  },
};
