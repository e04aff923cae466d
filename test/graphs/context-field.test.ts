import { describe, expect, it } from "vitest";
import { choiceField, limitField, textField } from "../../graphs/context-field.js";

describe("context field kinds", () => {
  it("a choice field takes one of its words, reads a blank form field as empty, and refuses others naming them all", () => {
    const onTrip = choiceField(["end", "ask"], { fill: () => "end", whenEmpty: "`end`" });
    expect(onTrip.schema.parse("ask")).toBe("ask");
    expect(onTrip.schema.parse("")).toBeUndefined();
    expect(onTrip.fill({})).toBe("end");
    expect(onTrip.runMaySet).toBe('"end" or "ask"');
    const refused = onTrip.schema.safeParse("stop");
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('must be "end" or "ask"');
  });

  it("a limit field reads numbers typed as text and holds its minimum", () => {
    const margin = limitField({ min: 0, bound: "warning", policyField: "the warn levels" });
    expect(margin.schema.parse(" 3 ")).toBe(3);
    expect(margin.schema.parse(0)).toBe(0);
    expect(margin.schema.safeParse(-1).error?.issues[0]?.message).toBe("must be at least 0");
    expect(margin.schema.safeParse("3.5").error?.issues[0]?.message).toBe("must be a whole number");
  });

  it("a text field refuses what is not text", () => {
    const prompt = textField({ fill: () => "be brief", whenEmpty: "a prompt", runMaySet: "any text" });
    expect(prompt.schema.parse(null)).toBeUndefined();
    expect(prompt.schema.safeParse(42).error?.issues[0]?.message).toBe("must be a string");
  });
});
