// The README's comparison with LangChain's own middleware, checked against langchain itself.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware, toolCallLimitMiddleware, ToolCallLimitExceededError, toolErrorMiddleware, type AnyAgentMiddleware } from "langchain";
import { beforeEach, describe, expect, it } from "vitest";
import { EXAMPLE_TOOLS, resetToolFixtures } from "../../tools/index.js";
import { callsTurn, ReplayChatModel, toolMessages, toolReplyProblems, trajectory } from "../support/graph-helpers.js";
import { runAgent, scriptedModel, testAgent } from "./support/agent.js";

/** createAgent with LangChain's middleware in place of the breaker. */
function agentWith(model: BaseChatModel, middleware: AnyAgentMiddleware[]) {
  const all: AnyAgentMiddleware[] = [...middleware, toolErrorMiddleware({ onError: (e) => `Error: ${(e as Error).message}` })];
  return createAgent({
    model,
    tools: EXAMPLE_TOOLS,
    middleware: all,
    checkpointer: new MemorySaver(),
  });
}

const run = (agent: ReturnType<typeof agentWith>, thread: string) =>
  agent.invoke({ messages: [{ role: "user", content: "Go." }] }, { configurable: { thread_id: thread }, recursionLimit: 100 });

const ran = (messages: readonly BaseMessage[]) => toolMessages(messages).filter((m) => m.status !== "error").length;

describe("the breaker and toolCallLimitMiddleware / humanInTheLoopMiddleware, as the README compares them", () => {
  beforeEach(() => resetToolFixtures());

  it("a call count cannot tell a 4-page pagination from a stutter; the breaker's detectors can", async () => {
    // runLimit 3 stops the legitimate pagination...
    const paging = await run(agentWith(scriptedModel("pagination"), [toolCallLimitMiddleware({ runLimit: 3, exitBehavior: "end" })]), "p3");
    expect(ran(paging.messages)).toBe(3);
    // ...and runLimit 4, which lets it finish, lets a stutter make 4 cosmetic variants of one lookup.
    const stutter = await run(agentWith(scriptedModel("stutter"), [toolCallLimitMiddleware({ runLimit: 4, exitBehavior: "end" })]), "s4");
    expect(toolMessages(stutter.messages).filter((m) => m.name === "query_crm" && !String(m.content).includes("limit"))).toHaveLength(4);

    const guardedPaging = await runAgent(testAgent({ model: scriptedModel("pagination") }), "Orders?", { thread: "bp" });
    expect(trajectory(guardedPaging.messages)).toEqual(["ran", "ran", "ran", "ran"]);
    const guardedStutter = await runAgent(testAgent({ model: scriptedModel("stutter") }), "Owner?", { thread: "bs" });
    expect(trajectory(guardedStutter.messages).filter((t) => t !== "refused").length).toBeLessThan(4);
  });

  it('toolCallLimitMiddleware "error" leaves the thread with tool calls no reply answers', async () => {
    const agent = agentWith(scriptedModel("loop"), [toolCallLimitMiddleware({ runLimit: 2, exitBehavior: "error" })]);
    await expect(run(agent, "tcl-error")).rejects.toBeInstanceOf(ToolCallLimitExceededError);
    const thread = (await agent.graph.getState({ configurable: { thread_id: "tcl-error" } })).values.messages as BaseMessage[];
    expect(toolReplyProblems(thread)).toEqual([expect.stringMatching(/got replies \[\]/)]);
  });

  it('toolCallLimitMiddleware "continue" ends the run without an answer once every call of a message is blocked', async () => {
    const out = await run(agentWith(scriptedModel("loop"), [toolCallLimitMiddleware({ runLimit: 2, exitBehavior: "continue" })]), "tcl-continue");
    const last = out.messages.at(-1)!;
    expect(ToolMessage.isInstance(last) && last.status === "error").toBe(true);
    expect(String(last.content)).toMatch(/Tool call limit exceeded/);
  });

  it('toolCallLimitMiddleware "end" refuses to end a message that also calls other tools', async () => {
    const mixed = callsTurn(
      { name: "query_crm", args: { company_name: "Acme Corp" } },
      { name: "get_financials", args: { account_id: "acc_001" } },
    );
    const agent = agentWith(new ReplayChatModel([mixed, mixed]), [toolCallLimitMiddleware({ runLimit: 3, exitBehavior: "end" })]);
    await expect(run(agent, "tcl-end")).rejects.toThrow(/Cannot end execution with other tool calls pending/);
  });

  it("humanInTheLoopMiddleware pauses on every configured call, loop or not, for a person to decide", async () => {
    const agent = agentWith(scriptedModel("stutter"), [humanInTheLoopMiddleware({ interruptOn: { query_crm: true } })]);
    const out = (await run(agent, "hitl")) as { messages: BaseMessage[]; __interrupt__?: { value: { actionRequests: { name: string }[] } }[] };
    expect(out.__interrupt__?.[0]?.value.actionRequests.map((r) => r.name)).toEqual(["query_crm"]);
    expect(out.messages.at(-1)).toBeInstanceOf(AIMessage);
    expect(toolMessages(out.messages)).toEqual([]);
  });
});
