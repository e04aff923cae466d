import type { CallRecord } from "../types.js";
import type { Detector } from "./detector.js";
import { findingAt } from "./detector.js";

// Tools that have answered in the run: a refusal of them is their own failure, not the harness's.
function workedTools(run: readonly CallRecord[]): Set<string> {
  const worked = new Set<string>();
  for (const call of run) if (call.outcome && call.outcome.kind !== "error") worked.add(call.tool);
  return worked;
}

/**
 * Calls to tools the harness does not have: each answered with the same
 * error whatever tool it named ("Unknown tool: Miro", "Tool \"functions_Bash\"
 * not found", in any language), one invented name after another. No single
 * tool repeats, so the per-request detectors see distinct calls; the model is
 * guessing tool names. Counts the refusals in a row (two tools at least) and
 * the candidate, when the candidate names yet another tool that has not worked.
 */
export const refusedTools: Detector = {
  id: "refused_tools",
  scope: "run",
  needsRun: true,
  detect({ candidate, run, levels }) {
    const refused: CallRecord[] = [];
    let worked: Set<string> | undefined;
    for (let i = run.length - 1; i >= 0; i--) {
      const call = run[i]!;
      if (!call.outcome || call.outcome.cancelled) continue;
      const about = call.outcome.aboutTool;
      if (!about || (refused.length > 0 && about !== refused[0]!.outcome!.aboutTool)) break;
      worked ??= workedTools(run);
      if (worked.has(call.tool)) break;
      refused.push(call);
    }
    if (refused.length === 0 || worked!.has(candidate.tool)) return null;
    // Another invented name each time; the same refused tool again is a repeat, judged as one.
    const tools = new Set(refused.map((c) => c.tool));
    if (tools.size < 2 || tools.has(candidate.tool)) return null;
    refused.reverse();
    const steps = [...refused.map((c) => c.step), candidate.step];
    return findingAt("refused_tools", steps.length, levels.refused_tools, steps, () =>
      `The last ${refused.length} calls named tools that were refused the same way (${[...tools].join(", ")}); call one of the tools you were given, or answer.`,
    );
  },
};
