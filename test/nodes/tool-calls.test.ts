import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { BREAKER_ANSWER, currentRunId } from "../../nodes/tool-calls.js";

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

  it("reads the same message sent after the model answered as a person asking again, and after a trip as a retry", () => {
    const ask = (id: string) => new HumanMessage({ id, content: "Please list the limitation related to the system BSOD." });
    const calling = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "retrieval", args: { question: "BSOD" } }] });
    const answer = new AIMessage("Here are 6 limitations related to system BSOD: ...");
    // Asked again after an answer (RAGFlow's recorded shape): a new turn.
    expect(currentRunId([ask("h1"), calling, answer, ask("h2")])).toBe("h2");
    // Sent again while the model was still calling tools: a harness re-sending it, the same run.
    expect(currentRunId([ask("h1"), calling, ask("h2")])).toBe("h1");
    // Sent again after the breaker's answer in the model's place: a retry of the stopped run.
    const tripped = new AIMessage({ content: "I stopped: the circuit breaker tripped.", response_metadata: { [BREAKER_ANSWER]: true } });
    expect(currentRunId([ask("h1"), calling, tripped, ask("h2")])).toBe("h1");
  });
});
