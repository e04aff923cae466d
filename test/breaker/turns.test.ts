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

  // A Cursor session's nudge as SpecStory recorded it: the harness's message id, then "continue" in Russian.
  it.each(["9a02c1b6-e127-4a7c-b6e5-5475a3c186e5 продолжай", "Продолжай, пожалуйста", "Sigue, por favor", "weiter", "继续", "続けてください", "계속해줘"])(
    "reads %j, a nudge in another language or under a stamped id, as keeping the run",
    (text) => {
      expect(isContinuation(text, said("Почини тест."))).toBe(true);
    },
  );

  it.each(["Try again, please.", "Now check the staging cluster too.", "Use the other API key.", "What about invoice INV-42?", "продолжай и почини тест логина", "Por favor, arregla el login", "a3f9c2e1 fix the login page"])(
    "reads %j as a new turn",
    (text) => {
      expect(isContinuation(text, said("Fix the failing test."))).toBe(false);
    },
  );
});
