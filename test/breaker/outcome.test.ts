import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";

describe("summarizeOutcome: 'nothing found' texts", () => {
  it.each(["No results found.", "No company found matching 'Acme'", "None", "not found", "0 results", "Could not find that file."])(
    "reads %j as empty",
    (output) => {
      expect(summarizeOutcome({ output }).kind).toBe("empty");
    },
  );

  it.each(["Normal operation", "Nov 3: 12 orders shipped", "Nonetheless, 3 rows matched", `No ${"x ".repeat(150)}`])(
    "reads %j as a result",
    (output) => {
      expect(summarizeOutcome({ output }).kind).toBe("ok");
    },
  );
});
