import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { currentRunId } from "../../nodes/tool-calls.js";

const blocks = (text: string) => [{ type: "text" as const, text }];

describe("currentRunId", () => {
  it("reads content blocks as the text they hold, as Studio and multimodal clients send them", () => {
    const asked = new HumanMessage({ id: "h1", content: blocks("How many invoices are overdue?") });
    const nudge = new HumanMessage({ id: "h2", content: blocks("continue") });
    // A "continue" nudge keeps the run, whether it came as text or as blocks.
    expect(currentRunId([asked, new AIMessage("…"), nudge])).toBe("h1");
    expect(currentRunId([asked, new AIMessage("…"), new HumanMessage({ id: "h2", content: "continue" })])).toBe("h1");
  });

  it("starts a new run at a new request, and at the same words only when they are not a nudge", () => {
    const first = new HumanMessage({ id: "h1", content: "How many invoices are overdue?" });
    const second = new HumanMessage({ id: "h2", content: blocks("List the open orders for Acme.") });
    expect(currentRunId([first, new AIMessage("…"), second])).toBe("h2");
    // Non-text blocks carry no words: an image alone is a new request, not a continuation of the last one.
    const image = new HumanMessage({ id: "h3", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA" } }] });
    expect(currentRunId([first, new AIMessage("…"), image])).toBe("h3");
  });
});
