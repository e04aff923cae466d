import { describe, expect, it } from "vitest";
import { isContinuation, turnKey } from "../../breaker/turns.js";

const said = (...messages: string[]) => new Set(messages.map(turnKey));

describe("user turns", () => {
  it.each(["continue", "Please proceed.", "keep going", "OK, go on", "", "   "])("reads %j as a harness nudge that keeps the run", (text) => {
    expect(isContinuation(text, said("Fix the failing test."))).toBe(true);
  });

  it("reads the same message sent again as a nudge, whatever its case and punctuation", () => {
    expect(isContinuation("fix the failing test", said("Fix the failing test."))).toBe(true);
  });

  it.each(["Try again, please.", "Now check the staging cluster too.", "Use the other API key.", "What about invoice INV-42?"])(
    "reads %j as a new turn",
    (text) => {
      expect(isContinuation(text, said("Fix the failing test."))).toBe(false);
    },
  );
});
