import { describe, expect, it } from "vitest";
import { MAX_HINT_LENGTH, parseReviewDecision } from "../../nodes/review-decision.js";

describe("parseReviewDecision: a person's answer to a circuit_open interrupt", () => {
  it.each<[string, unknown, unknown]>([
    ["stop", { action: "stop" }, { action: "stop" }],
    ["continue without a hint", { action: "continue" }, { action: "continue", hint: "" }],
    ["continue with a hint, trimmed", { action: "continue", hint: "  Use the invoices table. " }, { action: "continue", hint: "Use the invoices table." }],
    ["the same as JSON text", '{"action":"continue","hint":"x"}', { action: "continue", hint: "x" }],
  ])("reads %s", (_what, value, decision) => {
    expect(parseReviewDecision(value)).toEqual(decision);
  });

  it.each<[string, unknown, string]>([
    ["an array", [{ action: "stop" }], "is not an object"],
    ["a stop with a hint", { action: "stop", hint: "why" }, 'has a hint, which only "continue" takes'],
    ["a missing action", { hint: "x" }, 'needs "action": "stop" or "continue"'],
    ["an action in other case", { action: "STOP" }, 'needs "action": "stop" or "continue"'],
    ["a hint over the limit", { action: "continue", hint: "x".repeat(MAX_HINT_LENGTH + 1) }, `longer than ${MAX_HINT_LENGTH} characters`],
    ["JSON text of a string", '"stop"', "is not an object"],
  ])("refuses %s, saying why and what is accepted", (_what, value, why) => {
    const refused = parseReviewDecision(value);
    expect(refused).toMatchObject({ code: "INVALID_RESUME" });
    const message = (refused as { message: string }).message;
    expect(message).toContain(why);
    expect(message).toMatch(/Resume with \{"action":"stop"\} to end the run, or \{"action":"continue","hint":"what to do differently"\}/);
    // The value is quoted, cut short: a hostile answer cannot flood the interrupt.
    expect(message.length).toBeLessThan(400);
  });
});
