import type { AIMessageFields } from "@langchain/core/messages";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { MAX_ARGS_CHARS } from "../../nodes/run-tool.js";
import { EXAMPLE_TOOLS, defineTool, resetToolFixtures } from "../../tools/index.js";
import {
  ReplayChatModel,
  callsTurn,
  inspectSession,
  runTurn,
  testGraph,
  textOf,
  threadSession,
  toolMessages,
  toolReplyProblems,
} from "../support/graph-helpers.js";

const explode = defineTool(
  { name: "explode", description: "Always fails.", schema: z.object({}), nature: "read_only" },
  () => {
    throw new Error("boom");
  },
);

const slow = defineTool(
  { name: "slow_tool", description: "Takes longer than it may.", schema: z.object({}), nature: "read_only", timeoutMs: 50 },
  async () => {
    await sleep(300);
    return "too late";
  },
);

const TOOLS = [...EXAMPLE_TOOLS, explode, slow];
const THREAD = "bad-input";

const malformed = (id: string | undefined, name: string | undefined, args: string): AIMessageFields => ({
  content: "",
  invalid_tool_calls: [{ id, name, args, error: "Unexpected end of JSON input", type: "invalid_tool_call" }],
});

/** A model turn with one bad call, and the error the model must read back. */
const CASES: [string, AIMessageFields, RegExp][] = [
  ["malformed JSON arguments", malformed("bad-1", "query_crm", '{"company_name": "Ac'), /arguments for query_crm are not valid JSON/],
  ["a malformed call with no name or id", malformed(undefined, undefined, "{"), /Unknown tool ""/],
  ["an unknown tool", callsTurn({ id: "u1", name: "launch_rockets", args: {} }), /Unknown tool "launch_rockets"\. Available tools: query_crm, /],
  ["arguments of the wrong type", callsTurn({ id: "s1", name: "query_crm", args: { company_name: 42 } }), /Invalid arguments for query_crm: company_name: /],
  ["a missing argument", callsTurn({ id: "s2", name: "get_financials", args: {} }), /Invalid arguments for get_financials: account_id: /],
  ["a throwing tool", callsTurn({ id: "t1", name: "explode", args: {} }), /explode failed: boom/],
  ["a tool error from an example tool", callsTurn({ id: "t2", name: "read_file_contents", args: { path: "repo://a.md#L1" } }), /Cannot parse path/],
  ["a tool exceeding its timeout", callsTurn({ id: "t3", name: "slow_tool", args: {} }), /slow_tool did not finish within 50 ms/],
  [
    "oversized arguments",
    callsTurn({ id: "o1", name: "query_crm", args: { company_name: "x".repeat(MAX_ARGS_CHARS) } }),
    new RegExp(`limit is ${MAX_ARGS_CHARS}`),
  ],
];

describe("bad tool calls in the graph", () => {
  beforeEach(() => resetToolFixtures());

  it.each(CASES)("%s gives an error ToolMessage, and the model gets its next turn", async (_what, turn, error) => {
    const { graph, store } = testGraph({ tools: TOOLS, model: new ReplayChatModel([turn], "Final answer.") });
    const { nodes, state } = await runTurn(graph, "Go.", { thread: THREAD });

    const [reply, ...more] = toolMessages(state.messages);
    expect(more).toEqual([]);
    expect(reply!.status).toBe("error");
    expect(textOf(reply!)).toMatch(/^Error: /);
    expect(textOf(reply!)).toMatch(error);
    expect(toolReplyProblems(state.messages)).toEqual([]);

    expect(nodes).toEqual(["agent", "tools", "agent"]);
    expect(state.messages.at(-1)!.content).toBe("Final answer.");
    expect(state.halted).toBe(false);

    // The breaker counted the call and saw it fail.
    const session = await inspectSession(store, threadSession(THREAD));
    expect(session.totalCalls).toBe(1);
    // The breaker knows the call by the model's id, namespaced by thread and message.
    expect(session.window[0]!.id.endsWith(`/${reply!.tool_call_id}`)).toBe(true);
    expect(session.window[0]!.outcome?.kind).toBe("error");
  });

  it("judges a throwing tool by its own error, as offline, while the model is told which tool failed", async () => {
    const missing = defineTool({ name: "run_script", description: "Runs a script.", schema: z.object({}), nature: "read_only" }, () => {
      throw new Error("ModuleNotFoundError: No module named 'PIL'");
    });
    const { graph, store } = testGraph({ tools: [...TOOLS, missing], model: new ReplayChatModel([callsTurn({ id: "m1", name: "run_script", args: {} })], "Done.") });
    const { state } = await runTurn(graph, "Go.", { thread: THREAD });
    expect(textOf(toolMessages(state.messages)[0]!)).toBe("Error: run_script failed: ModuleNotFoundError: No module named 'PIL'");
    // The outcome a recorded run would give the evaluator for the same error: same fingerprint, same cause.
    const offline = summarizeOutcome({ error: "ModuleNotFoundError: No module named 'PIL'", args: {}, tool: "run_script" });
    const recorded = (await inspectSession(store, threadSession(THREAD))).window[0]!.outcome!;
    expect(offline.cause).toBeDefined();
    expect(recorded).toMatchObject({ kind: "error", fingerprint: offline.fingerprint, cause: offline.cause });
  });

  it("answers a batch of bad calls one by one and goes on", async () => {
    const batch: AIMessageFields = {
      content: "",
      tool_calls: CASES.flatMap(([, turn]) => turn.tool_calls ?? []),
      invalid_tool_calls: CASES.flatMap(([, turn]) => turn.invalid_tool_calls ?? []),
    };
    const { graph, store } = testGraph({ tools: TOOLS, model: new ReplayChatModel([batch], "Final answer.") });
    const { state } = await runTurn(graph, "Go.", { thread: THREAD });

    const replies = toolMessages(state.messages);
    expect(replies).toHaveLength(CASES.length);
    expect(replies.every((m) => m.status === "error")).toBe(true);
    expect(toolReplyProblems(state.messages)).toEqual([]);
    expect(state.messages.at(-1)!.content).toBe("Final answer.");

    const session = await inspectSession(store, threadSession(THREAD));
    expect(session.totalCalls).toBe(CASES.length);
    expect(session.window.map((c) => c.outcome?.kind)).toEqual(CASES.map(() => "error"));
  });

  it("still trips on a malformed call the model keeps repeating", async () => {
    const repeat = [1, 2, 3, 4, 5, 6].map((n) => malformed(`bad-${n}`, "query_crm", '{"company_name": "Ac'));
    const { graph } = testGraph({ tools: TOOLS, model: new ReplayChatModel(repeat, "Final answer.") });
    const { nodes, state } = await runTurn(graph, "Go.", { thread: THREAD });
    expect(nodes.at(-1)).toBe("circuit_fallback");
    expect(state.halted).toBe(true);
    expect(toolReplyProblems(state.messages)).toEqual([]);
  });
});
