import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";
import { times } from "./wording.js";
import { doneCalls, familyStreak, judgedStreak } from "./family.js";
import { describeOutcomes } from "./progress.js";

const SAMPLE_CHARS = 40;
const MAX_FIELDS = 3;

function parsed(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function show(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? "undefined");
  return text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS)}…` : text;
}

// What changed between the calls, e.g. `company_name: "Acme Corp" → "ACME corp."`: only
// computed when a finding is reported, so parsing again here costs nothing on the hot path.
function changes(calls: readonly CallRecord[]): string {
  const values = calls.map((c) => parsed(c.args));
  const objects = values.every((v) => v !== null && typeof v === "object" && !Array.isArray(v));
  if (!objects) return [...new Set(values.map(show))].join(" → ");
  const keys = [...new Set(values.flatMap((v) => Object.keys(v as object)))];
  const parts: string[] = [];
  for (const key of keys) {
    const shown = values.map((v) => show((v as Record<string, unknown>)[key]));
    const distinct = shown.filter((text, i) => i === 0 || text !== shown[i - 1]);
    if (distinct.length > 1) parts.push(`${key}: ${distinct.join(" → ")}`);
  }
  return parts.slice(0, MAX_FIELDS).join("; ");
}

/**
 * The same tool asked for the same thing with cosmetically different
 * arguments (case, punctuation, legal suffixes, typos, word order, a drifting
 * offset) while nothing new comes back: the model is rephrasing, not learning.
 */
export const semanticStutter: Detector = {
  id: "semantic_stutter",
  scope: "run",
  needsRun: true,
  detect(input) {
    const { candidate, levels } = input;
    if (!levels.semantic_stutter.resetOnProgress) {
      // Side effects: every near-identical call that went through counts, whatever it returned.
      const done = doneCalls(input);
      if (!done.some((c) => c.argsHash !== candidate.argsHash)) return null;
      const evidence = [...done, candidate];
      return findingAt("semantic_stutter", evidence.length, levels.semantic_stutter, evidence.map((c) => c.step), () =>
        `${candidate.tool} has side effects and was called ${times(evidence.length)} with nearly the same arguments (${changes(evidence)}).`,
      );
    }
    const family = familyStreak(input);
    if (!family.varied || family.kind === "poll") return null;
    const { streak, level } = judgedStreak(input, family, levels.semantic_stutter);
    const evidence = [...streak, candidate];
    const steps = evidence.map((c) => c.step);
    return findingAt("semantic_stutter", steps.length, level, steps, () =>
      `${candidate.tool} has asked for the same thing ${times(steps.length)} with only cosmetic changes (${changes(evidence)}) and brought nothing new (${describeOutcomes(streak)}).`,
    );
  },
};
