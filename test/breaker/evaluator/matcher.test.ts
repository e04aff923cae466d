import { describe, expect, it } from "vitest";

const loop = { id: "stuck", toolCalls: Array.from({ length: 5 }, () => ({ name: "kb_search", args: { query: "sso" }, output: "[]" })) };
const clean = { id: "clean", toolCalls: [{ name: "kb_search", args: { query: "sso" }, output: '{"results":[{"id":"kb-009"}]}' }] };

describe("toHaveNoToolLoops", () => {
  it("passes a clean trajectory and fails a loop", async () => {
    await expect(clean).toHaveNoToolLoops();
    await expect(loop).not.toHaveNoToolLoops();
  });

  it("lists the findings in its failure message", async () => {
    await expect(expect(loop).toHaveNoToolLoops()).rejects.toThrow(
      /trajectory "stuck" to have no tool loops, but the breaker opened at step 3:\n.*\[warn\] no_progress at steps 1, 2: .*\n.*\[block\] no_progress at steps 1, 2, 3: kb_search has brought nothing new twice in a row/s,
    );
  });

  it("explains a negated failure too", async () => {
    await expect(expect(clean).not.toHaveNoToolLoops()).rejects.toThrow(/expected trajectory "clean" to trip the circuit breaker/);
  });

  it("takes a policy", async () => {
    await expect(loop).toHaveNoToolLoops({ detectors: { no_progress: { warn: 9, block: 9 }, identical_repeat: { warn: 9, block: 9 } } });
  });
});
