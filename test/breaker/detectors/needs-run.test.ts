import { describe, expect, it } from "vitest";
import { DETECTORS, type DetectionInput } from "../../../breaker/detectors/index.js";
import { DEFAULT_POLICY, type DetectorsPolicy } from "../../../breaker/policy.js";
import type { ToolNature } from "../../../breaker/types.js";
import { windowOf, type CallSpec } from "../support/window.js";

// Every level at its lowest (warn 1, block 1), with progress both resetting and not: a detector that needs
// the run's earlier calls must still find nothing on a first call.
function lowestLevels(resetOnProgress: boolean): DetectorsPolicy {
  const levels: Record<string, unknown> = {};
  for (const [id, level] of Object.entries(DEFAULT_POLICY.detectors)) {
    levels[id] = { ...level, warn: 1, block: 1, ...("resetOnProgress" in level ? { resetOnProgress } : {}) };
  }
  return levels as unknown as DetectorsPolicy;
}

const FIRST_CALLS: CallSpec[] = [
  { tool: "query_crm", args: { company_name: "Acme Corp" } },
  { tool: "bash", args: { command: "python -c 'print(1)' && pytest tests/test_a.py" } },
  { tool: "check_job_status", args: { job_id: "j1" } },
  { tool: "list_orders", args: { page: 2, limit: 50 } },
  { tool: "send_email", args: { to: "a@example.com", body: "Hi" } },
];
const NATURES: (ToolNature | undefined)[] = [undefined, "read_only", "side_effecting", "pagination", "polling"];

describe("detectors that need the run's earlier calls (needsRun), which decide skips on a run's first call", () => {
  const needy = DETECTORS.filter((d) => d.needsRun);

  it("are the loop detectors that compare a call with earlier ones", () => {
    expect(needy.map((d) => d.id).sort()).toEqual(["cycle", "flailing", "page_revisit", "refused_tools", "same_failure", "semantic_stutter", "stuck_poll"]);
  });

  it("find nothing on a first call, whatever the levels, the nature and the session before it", () => {
    for (const spec of FIRST_CALLS) {
      const [earlier, candidate] = windowOf([{ ...spec, run: "r0", out: "error" }, { ...spec, run: "r1" }]);
      for (const nature of NATURES) {
        for (const resetOnProgress of [false, true]) {
          const input: DetectionInput = {
            candidate: candidate!,
            run: [],
            session: [earlier!],
            runCalls: 1,
            usage: { inputTokens: 0, outputTokens: 0, costMicros: 0 },
            now: candidate!.at,
            levels: lowestLevels(resetOnProgress),
            nature,
            policy: DEFAULT_POLICY,
          };
          for (const detector of needy) expect(detector.detect(input), `${detector.id} on ${spec.tool} (${nature})`).toBeNull();
        }
      }
    }
  });
});
