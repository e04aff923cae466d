import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createAgentNode } from "../../nodes/agent.js";
import { SCENARIOS } from "../../nodes/model/scenarios.js";
import { UNPARSED_ARGS_KEY, pendingCalls } from "../../nodes/tool-calls.js";
import { ReplayChatModel, callsTurn, configWith, stateWith, testResolver } from "../support/graph-helpers.js";

/** Run the agent node once on a fresh user message and return its update. */
async function agentStep(resolveDeps: Parameters<typeof testResolver>[0], context: Record<string, unknown> = {}, thread = "agent-thread") {
  const { resolve } = testResolver(resolveDeps);
  const state = { ...stateWith([new HumanMessage({ id: "h-1", content: "Question?" })]), halted: true };
  const update = await createAgentNode(resolve)(state, configWith(context, thread));
  expect(update.messages).toHaveLength(1);
  const message = update.messages[0]!;
  expect(AIMessage.isInstance(message)).toBe(true);
  return { ...update, message };
}

describe("agent node", () => {
  it("asks the scripted model of the context and records the session and a fresh run", async () => {
    const { message, sessionId, halted } = await agentStep({}, { model: "scripted:clean" });
    const expected = SCENARIOS.get("clean")!.turns[0]!.calls![0]!;
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls![0]).toMatchObject({ name: expected.name, args: expected.args });
    expect(message.tool_calls![0]!.id).toMatch(/^call_/);
    expect(message.usage_metadata?.output_tokens).toBe(40);
    expect(message.response_metadata?.model_name).toBe("scripted:clean");
    expect(sessionId).toBe("agent-thread");
    expect(halted).toBe(false);
  });

  it("puts the context's system prompt in front of the conversation", async () => {
    const model = new ReplayChatModel([], "ok");
    await agentStep({ model }, { systemPrompt: "Be terse." });
    const prompt = model.prompts[0]!;
    expect(prompt[0]!.getType()).toBe("system");
    expect(prompt[0]!.content).toBe("Be terse.");
    expect(prompt.slice(1).map((m) => m.content)).toEqual(["Question?"]);
  });

  it("gives calls without an id one, and makes duplicate ids unique", async () => {
    const model = new ReplayChatModel([
      callsTurn(
        { name: "query_crm", args: { company_name: "Acme Corp" } },
        { id: "dup", name: "query_crm", args: { company_name: "Globex" } },
        { id: "dup", name: "get_financials", args: { account_id: "acc_001" } },
        { id: "dup", name: "get_financials", args: { account_id: "acc_002" } },
      ),
    ]);
    const { message } = await agentStep({ model });
    const ids = message.tool_calls!.map((c) => c.id);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(4);
    expect(ids.slice(1)).toEqual(["dup", "dup_2", "dup_3"]);
    // The calls themselves are untouched, in order.
    expect(message.tool_calls!.map((c) => c.args)).toEqual([
      { company_name: "Acme Corp" },
      { company_name: "Globex" },
      { account_id: "acc_001" },
      { account_id: "acc_002" },
    ]);
  });

  it("moves invalid_tool_calls into tool_calls with their raw arguments", async () => {
    const raw = '{"company_name": "Acme';
    const model = new ReplayChatModel([
      {
        content: "",
        tool_calls: [{ id: "ok-1", name: "query_crm", args: { company_name: "Acme Corp" }, type: "tool_call" }],
        invalid_tool_calls: [
          { id: "bad-1", name: "query_crm", args: raw, error: "Unterminated string", type: "invalid_tool_call" },
          { id: "ok-1", name: undefined, args: undefined, error: undefined, type: "invalid_tool_call" },
        ],
      },
    ]);
    const { message } = await agentStep({ model });
    expect(message.invalid_tool_calls).toEqual([]);
    expect(message.tool_calls!.map((c) => c.id)).toEqual(["ok-1", "bad-1", "ok-1_2"]);
    expect(message.tool_calls![1]!.args).toEqual({ [UNPARSED_ARGS_KEY]: raw, error: "Unterminated string" });

    const pending = pendingCalls(message);
    expect(pending[0]).toEqual({ id: "ok-1", name: "query_crm", args: { company_name: "Acme Corp" } });
    expect(pending[1]).toEqual({ id: "bad-1", name: "query_crm", args: raw, parseError: "Unterminated string" });
    expect(pending[2]).toMatchObject({ id: "ok-1_2", name: "", args: "" });
    expect(pending[2]!.parseError).toBeTruthy();
  });

  it("answers without tool calls when the scripted turns run out", async () => {
    const { message } = await agentStep({ model: new ReplayChatModel([], "All done.") });
    expect(message.content).toBe("All done.");
    expect(message.tool_calls ?? []).toEqual([]);
  });
});
