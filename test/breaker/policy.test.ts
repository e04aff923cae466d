import { describe, expect, it } from "vitest";
import { BreakerError } from "../../breaker/errors.js";
import { DEFAULT_NATURES, DEFAULT_POLICY, detectorsFor, parsePolicy, withToolDeclarations } from "../../breaker/policy.js";

describe("policy", () => {
  it("gives every detector a warning before its block by default", () => {
    for (const [id, level] of Object.entries(DEFAULT_POLICY.detectors)) {
      expect(level.warn, id).toBeLessThan(level.block);
    }
  });

  it("lets a side-effecting tool repeat nothing, and judges a polling tool by the poll's time budget", () => {
    const policy = parsePolicy({ tools: { poll: { nature: "polling" }, mail: { nature: "side_effecting" } } });
    expect(detectorsFor(policy, "poll")).toEqual(DEFAULT_POLICY.detectors);
    expect(detectorsFor(policy, "mail").identical_repeat).toMatchObject({ warn: 2, block: 2, resetOnProgress: false });
    expect(detectorsFor(policy, "mail").semantic_stutter).toMatchObject({ block: 2, resetOnProgress: false });
  });

  it("applies a tool's own overrides over its nature's", () => {
    const policy = parsePolicy({ tools: { mail: { nature: "side_effecting", detectors: { identical_repeat: { block: 3 } } } } });
    expect(detectorsFor(policy, "mail").identical_repeat).toEqual({ warn: 2, block: 3, resetOnProgress: false });
  });

  it("keeps a warning at or before a block an override lowered", () => {
    const policy = parsePolicy({ tools: { t: { detectors: { error_flood: { block: 2 } } } } });
    expect(detectorsFor(policy, "t").error_flood).toEqual({ warn: 2, block: 2 });
  });

  it("uses an observed nature only when none is declared", () => {
    const policy = parsePolicy({ natures: { ...DEFAULT_NATURES, polling: { stuck_poll: { block: 900 } } }, tools: { mail: { nature: "side_effecting" } } });
    expect(detectorsFor(policy, "status", "polling").stuck_poll.block).toBe(900);
    expect(detectorsFor(policy, "mail", "polling").identical_repeat.block).toBe(2);
    expect(detectorsFor(policy, "mail", "polling").stuck_poll.block).toBe(DEFAULT_POLICY.detectors.stuck_poll.block);
  });

  it("rejects a warn level above its block, naming the field", () => {
    expect(() => parsePolicy({ detectors: { cycle: { warn: 5, block: 3 } } })).toThrow(BreakerError);
    expect(() => parsePolicy({ detectors: { cycle: { warn: 5, block: 3 } } })).toThrow(/detectors\.cycle/);
    expect(() => parsePolicy({ detectors: { semantic_stutter: { similarity: 2 } } })).toThrow(/semantic_stutter\.similarity/);
  });

  it("adds what tools declare (nature, poll budget) wherever the policy says nothing of its own", () => {
    const policy = parsePolicy({
      tools: { send_email: { nature: "read_only" }, kb_search: { detectors: { cycle: { warn: 9, block: 9 } } }, export_status: { detectors: { stuck_poll: { block: 900 } } } },
    });
    const merged = withToolDeclarations(policy, {
      send_email: { nature: "side_effecting" },
      kb_search: { nature: "pagination" },
      check_job_status: { nature: "polling", pollSeconds: 120 },
      export_status: { pollSeconds: 60 },
    });
    expect(merged.tools).toEqual({
      send_email: { nature: "read_only" },
      kb_search: { nature: "pagination", detectors: { cycle: { warn: 9, block: 9 } } },
      check_job_status: { nature: "polling", detectors: { stuck_poll: { warn: 96, block: 120 } } },
      export_status: { detectors: { stuck_poll: { block: 900 } } },
    });
    expect(detectorsFor(merged, "check_job_status").stuck_poll).toMatchObject({ warn: 96, block: 120 });
    expect(withToolDeclarations(merged, { send_email: { nature: "side_effecting" } })).toBe(merged);
  });

  it("accepts budgets in tokens and dollars", () => {
    const policy = parsePolicy({ detectors: { token_budget: { warn: 10, block: 20 }, cost_budget: { warn: 0.05, block: 0.1 } } });
    expect(policy.detectors.cost_budget).toEqual({ warn: 0.05, block: 0.1 });
  });
});

describe("resolved levels", () => {
  it("stay correct when thousands of tool names a model invents evict the cached ones", () => {
    const policy = parsePolicy({ tools: { send_email: { nature: "side_effecting" } } });
    for (let i = 0; i < 5_000; i++) detectorsFor(policy, `invented_${i}`);
    expect(detectorsFor(policy, "send_email").identical_repeat.block).toBe(2);
    expect(detectorsFor(policy, "invented_1").identical_repeat).toEqual(DEFAULT_POLICY.detectors.identical_repeat);
  });
});
