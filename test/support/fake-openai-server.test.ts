import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeOpenAI, type ChatCompletionRequest, type FakeOpenAIServer } from "./fake-openai-server.js";

const API_KEY = "sk-fake-test";

const lookup = tool(async ({ company }: { company: string }) => `record of ${company}`, {
  name: "query_crm",
  description: "Look a company up in the CRM.",
  schema: z.object({ company: z.string() }),
});

let server: FakeOpenAIServer;

beforeAll(async () => {
  server = await startFakeOpenAI({ apiKey: API_KEY });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

function chat(fields: { apiKey?: string; streaming?: boolean } = {}): ChatOpenAI {
  return new ChatOpenAI({
    model: "gpt-4o-mini",
    apiKey: fields.apiKey ?? API_KEY,
    streaming: fields.streaming ?? false,
    configuration: { baseURL: server.baseURL },
  });
}

/** The rejection ChatOpenAI raised, with the fields the OpenAI SDK copies from the error body. */
async function rejection(p: Promise<unknown>): Promise<{ status: number; message: string; param: unknown; code: unknown; type: unknown }> {
  const err = await p.then(
    () => {
      throw new Error("expected the request to be rejected");
    },
    (e: unknown) => e as { status: number; message: string; param: unknown; code: unknown; type: unknown },
  );
  return err;
}

describe("fake OpenAI server with the real ChatOpenAI client", () => {
  it("serves a tool call to bindTools + invoke, with ids, JSON arguments and usage", async () => {
    server.setScript([
      { toolCalls: [{ id: "call_crm_1", name: "query_crm", args: { company: "Acme Corp" } }], usage: { prompt_tokens: 41, completion_tokens: 7 } },
    ]);
    const reply = await chat().bindTools([lookup]).invoke([new HumanMessage("Who is Acme?")]);

    expect(reply.tool_calls).toEqual([{ id: "call_crm_1", name: "query_crm", args: { company: "Acme Corp" }, type: "tool_call" }]);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 41, output_tokens: 7, total_tokens: 48 });
    const [sent] = server.requests;
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.authorization).toBe(`Bearer ${API_KEY}`);
    const body = sent?.body as ChatCompletionRequest;
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.tools?.map((t) => t.function.name)).toEqual(["query_crm"]);
    expect(body.tools?.[0]?.function.parameters).toMatchObject({ type: "object", properties: { company: { type: "string" } } });
  });

  it("lets a script answer from the request, and sees the tool result on the next turn", async () => {
    server.setScript((request) => {
      const last = request.messages.at(-1);
      return last?.role === "tool"
        ? { content: `The CRM says: ${String(last.content)}` }
        : { toolCalls: [{ name: "query_crm", args: { company: "Acme" } }] };
    });
    const model = chat().bindTools([lookup]);
    const history: BaseMessage[] = [new HumanMessage("Who is Acme?")];
    const first = await model.invoke(history);
    const call = first.tool_calls?.[0];
    expect(call?.id).toMatch(/^call_[0-9a-f]{24}$/);
    history.push(first, new ToolMessage({ tool_call_id: call?.id ?? "", content: "record of Acme" }));
    const second = await model.invoke(history);

    expect(second.content).toBe("The CRM says: record of Acme");
    expect(second.tool_calls).toEqual([]);
    const sentMessages = (server.completions()[1]?.messages ?? []).map((m) => m.role);
    expect(sentMessages).toEqual(["user", "assistant", "tool"]);
  });

  it("streams tool-call deltas as SSE and ends with a usage chunk when include_usage is asked", async () => {
    server.setScript([
      {
        toolCalls: [
          { id: "call_a", name: "query_crm", args: { company: "Acme Corporation International" } },
          { id: "call_b", name: "query_crm", args: { company: "Globex" } },
        ],
        usage: { prompt_tokens: 30, completion_tokens: 12 },
      },
    ]);
    let joined: AIMessageChunk | undefined;
    let chunks = 0;
    for await (const chunk of await chat({ streaming: true }).bindTools([lookup]).stream([new HumanMessage("Acme and Globex?")])) {
      chunks += 1;
      joined = joined ? joined.concat(chunk) : chunk;
    }

    expect(chunks).toBeGreaterThan(4);
    expect(joined?.tool_calls?.map((c) => [c.id, c.args])).toEqual([
      ["call_a", { company: "Acme Corporation International" }],
      ["call_b", { company: "Globex" }],
    ]);
    expect(joined?.usage_metadata).toMatchObject({ input_tokens: 30, output_tokens: 12, total_tokens: 42 });
    const body = server.requests[0]?.body as ChatCompletionRequest;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it("streams plain content in several chunks", async () => {
    server.setScript([{ content: "Acme Corp is a customer since 2019." }]);
    const parts: string[] = [];
    for await (const chunk of await chat({ streaming: true }).stream("Tell me about Acme")) parts.push(String(chunk.content));

    expect(parts.filter((p) => p !== "").length).toBeGreaterThan(1);
    expect(parts.join("")).toBe("Acme Corp is a customer since 2019.");
  });

  it("rejects an assistant tool call left without a tool message, as the real API does (400)", async () => {
    server.setScript([{ content: "never served" }]);
    const history = [
      new HumanMessage("Who is Acme?"),
      new AIMessage({ content: "", tool_calls: [{ id: "call_x", name: "query_crm", args: { company: "Acme" } }, { id: "call_y", name: "query_crm", args: { company: "Acme Corp" } }] }),
      new ToolMessage({ tool_call_id: "call_x", content: "record" }),
      new HumanMessage("And now?"),
    ];
    const err = await rejection(chat().bindTools([lookup]).invoke(history));

    expect(err.status).toBe(400);
    expect(err.type).toBe("invalid_request_error");
    expect(err.param).toBe("messages.[1].role");
    expect(err.message).toContain("The following tool_call_ids did not have response messages: call_y");
    expect(server.requests).toHaveLength(1);
    expect(server.completions()).toHaveLength(0);
  });

  it("rejects a history that ends on an unanswered tool call", async () => {
    const history = [new HumanMessage("Who?"), new AIMessage({ content: "", tool_calls: [{ id: "call_z", name: "query_crm", args: { company: "A" } }] })];
    const err = await rejection(chat().bindTools([lookup]).invoke(history));

    expect(err.status).toBe(400);
    expect(err.message).toContain("did not have response messages: call_z");
  });

  it("rejects a tool message that answers no preceding call", async () => {
    const history = [
      new HumanMessage("Who is Acme?"),
      new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "query_crm", args: { company: "Acme" } }] }),
      new ToolMessage({ tool_call_id: "call_1", content: "record" }),
      new ToolMessage({ tool_call_id: "call_ghost", content: "stray" }),
    ];
    const err = await rejection(chat().bindTools([lookup]).invoke(history));

    expect(err.status).toBe(400);
    expect(err.param).toBe("messages.[3].role");
    expect(err.message).toContain(
      "400 Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
  });

  it("rejects an assistant tool call naming a tool that is not bound", async () => {
    const history = [
      new HumanMessage("Who is Acme?"),
      new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "drop_tables", args: {} }] }),
      new ToolMessage({ tool_call_id: "call_1", content: "done" }),
    ];
    const err = await rejection(chat().bindTools([lookup]).invoke(history));

    expect(err.status).toBe(400);
    expect(err.code).toBe("invalid_value");
    expect(err.message).toContain("tool 'drop_tables' is not in 'tools'");

    // Like the real API, a lenient server lets the same history through.
    const lenient = await startFakeOpenAI({ strictToolNames: false, script: [{ content: "ok" }] });
    try {
      const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: API_KEY, configuration: { baseURL: lenient.baseURL } });
      expect((await model.bindTools([lookup]).invoke(history)).content).toBe("ok");
    } finally {
      await lenient.close();
    }
  });

  it("rejects a tool_choice naming an unbound tool", async () => {
    const err = await rejection(chat().bindTools([lookup], { tool_choice: "get_financials" }).invoke("hi"));

    expect(err.status).toBe(400);
    expect(err.param).toBe("tool_choice");
    expect(err.message).toContain("tool 'get_financials' not found in 'tools' parameter");
  });

  it.each([
    ["a name with spaces", { name: "query crm", parameters: { type: "object", properties: {} } }, "tools[0].function.name", "invalid_value"],
    ["a name over 64 characters", { name: "x".repeat(65), parameters: { type: "object" } }, "tools[0].function.name", "invalid_value"],
    ["no name", { description: "nameless", parameters: { type: "object" } }, "tools[0].function.name", "missing_required_parameter"],
    ["parameters that are not an object schema", { name: "query_crm", parameters: { type: "string" } }, "tools[0].function.parameters", "invalid_function_parameters"],
  ])("rejects a malformed tool schema: %s", async (_label, fn, param, code) => {
    const err = await rejection(chat().bindTools([{ type: "function", function: fn as { name: string } }]).invoke("hi"));

    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(err.code).toBe(code);
  });

  it("answers 401 to a wrong key and to a request without a bearer token", async () => {
    const wrong = await rejection(chat({ apiKey: "sk-wrong" }).invoke("hi"));
    expect(wrong.status).toBe(401);
    expect(wrong.code).toBe("invalid_api_key");

    const res = await fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param: null, code: null } });
  });

  it("serves the path without /v1 too, and refuses once a queue script runs out", async () => {
    server.setScript([{ content: "only one" }]);
    const first = await new ChatOpenAI({
      model: "gpt-4o-mini",
      apiKey: API_KEY,
      configuration: { baseURL: server.baseURL.replace(/\/v1$/, "") },
    }).invoke("hi");
    expect(first.content).toBe("only one");
    expect(server.requests[0]?.path).toBe("/chat/completions");

    const err = await rejection(chat().invoke("again"));
    expect(err.status).toBe(400);
    expect(err.code).toBe("script_exhausted");
  });
});
