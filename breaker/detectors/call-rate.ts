import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";

/** Too many calls in the session within a sliding time window, whatever they are. */
export const callRate: Detector = {
  id: "call_rate",
  scope: "session",
  detect({ candidate, session, now, levels }) {
    const level = levels.call_rate;
    const from = now - level.windowSeconds * 1_000;
    const recent = session.filter((c) => c.at > from);
    const steps = [...recent.map((c) => c.step), candidate.step];
    return findingAt("call_rate", steps.length, level, steps, () =>
      `${steps.length} tool calls within ${level.windowSeconds}s (limit ${level.block}).`,
    );
  },
};
