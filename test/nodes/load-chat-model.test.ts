import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadChatModel, MissingModelPackageError, UnknownModelError } from "../../nodes/model/load-chat-model.js";
import { startFakeOpenAI, type FakeOpenAIServer } from "../support/fake-openai-server.js";
import { REPO_ROOT } from "../support/langgraph-dev-server.js";

const API_KEY = "sk-load-model-test-0123456789";
const env = { OPENAI_API_KEY: API_KEY };

describe("loadChatModel", () => {
  it("reuses the client for a model name asked for again, also when asked concurrently", async () => {
    const [a, b] = await Promise.all([loadChatModel("openai:gpt-4o-mini", env), loadChatModel("openai:gpt-4o-mini", env)]);
    expect(a).toBe(b);
    expect(await loadChatModel("openai:gpt-4o-mini", env)).toBe(a);
    // Another key is another client: a graph built with it must not reuse the first key's.
    expect(await loadChatModel("openai:gpt-4o-mini", { OPENAI_API_KEY: `${API_KEY}-other` })).not.toBe(a);
  });

  it("keeps only recent clients: names chosen by callers cannot grow the cache without bound", async () => {
    const first = await loadChatModel("openai:caller-model-0", env);
    for (let i = 1; i <= 200; i++) await loadChatModel(`openai:caller-model-${i}`, env);
    const recent = await loadChatModel("openai:caller-model-200", env);
    expect(await loadChatModel("openai:caller-model-200", env)).toBe(recent);
    // The first one was dropped long ago: asking again builds a new client.
    expect(await loadChatModel("openai:caller-model-0", env)).not.toBe(first);
  });

  it("loads a scripted scenario by name, and lists the scenarios for an unknown one", async () => {
    const scripted = await loadChatModel("scripted:clean", {});
    expect(scripted._llmType()).toBe("scripted");
    const reply = await scripted.invoke([new HumanMessage("What was Acme Corp's revenue last year?")]);
    expect(reply.tool_calls?.map((c) => [c.name, c.args])).toEqual([["query_crm", { company_name: "Acme Corp" }]]);

    const unknown = loadChatModel("scripted:nope", {});
    await expect(unknown).rejects.toThrow(UnknownModelError);
    await expect(unknown).rejects.toMatchObject({ code: "UNKNOWN_SCENARIO", model: "scripted:nope" });
    await expect(unknown).rejects.toThrow(/one of: .*\bloop\b.*\bclean\b/);
  });
});

// Run in a fresh process: a resolve hook reports every module it loads, so the test sees what the graph's path imports.
const LOADED_MODULES_PROBE = `
  import { register } from "node:module";
  import { MessageChannel } from "node:worker_threads";
  const { port1, port2 } = new MessageChannel();
  const seen = [];
  const waiting = new Map();
  port1.on("message", (url) => { seen.push(url); waiting.get(url)?.(); });
  port1.unref();
  register("data:text/javascript," + encodeURIComponent(\`
    let port;
    export function initialize(data) { port = data.port; }
    export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }
  \`), { data: { port: port2 }, transferList: [port2] });
  // Messages arrive in order: once a marker module's own arrives, every earlier one has.
  let markers = 0;
  const settle = async () => {
    const url = "data:text/javascript,export{}//" + ++markers;
    const arrived = new Promise((resolve) => waiting.set(url, resolve));
    await import(url);
    await arrived;
  };
  const demoLoaded = () => seen.some((url) => /scripted-chat-model|scenarios/.test(url));
  await import("./graphs/graph.ts");
  const { loadChatModel } = await import("./nodes/model/load-chat-model.ts");
  await loadChatModel("openai:gpt-4o-mini", { OPENAI_API_KEY: "sk-probe" });
  await settle();
  const before = demoLoaded();
  await loadChatModel("scripted:clean", {});
  await settle();
  console.log(JSON.stringify({ before, after: demoLoaded() }));`;

describe("the scripted demo model", () => {
  it("is not loaded by the graph or an OpenAI model, only once a run names scripted:...", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", LOADED_MODULES_PROBE], {
      cwd: REPO_ROOT,
      timeout: 60_000,
    });
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({ before: false, after: true });
  }, 90_000);
});

describe("loadChatModel by provider, through LangChain's initChatModel", () => {
  let fake: FakeOpenAIServer;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: API_KEY });
  });
  afterAll(async () => {
    await fake.close();
  });

  it("builds the real ChatOpenAI from OPENAI_API_KEY and OPENAI_BASE_URL, and it talks to that server", async () => {
    const model = await loadChatModel("openai:gpt-4o-mini", { ...env, OPENAI_BASE_URL: fake.baseURL });
    // The provider's own client, not initChatModel's wrapper (which keeps a client per call config).
    expect(model).toBeInstanceOf(ChatOpenAI);
    const lookup = tool(async () => "ok", { name: "lookup", description: "Look a name up.", schema: z.object({ q: z.string() }) });
    fake.setScript([{ toolCalls: [{ name: "lookup", args: { q: "Acme" } }] }]);
    const reply = await model.bindTools!([lookup]).invoke([new HumanMessage("Find Acme.")]);
    expect(reply.tool_calls?.map((c) => [c.name, c.args])).toEqual([["lookup", { q: "Acme" }]]);
    const [request] = fake.completions();
    expect(request).toMatchObject({ model: "gpt-4o-mini", tools: [{ type: "function", function: { name: "lookup" } }] });
    expect(fake.requests[0]?.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("splits the name at its first colon: the rest is the provider's model id, colons and all", async () => {
    const fineTuned = await loadChatModel("openai:ft:gpt-4o-mini:acme::abc123", env);
    expect(fineTuned).toBeInstanceOf(ChatOpenAI);
    expect((fineTuned as ChatOpenAI).model).toBe("ft:gpt-4o-mini:acme::abc123");
  });

  it("asks for OPENAI_API_KEY when an OpenAI model is named without one", async () => {
    const load = loadChatModel("openai:gpt-4o-mini", {});
    await expect(load).rejects.toMatchObject({ code: "MISSING_API_KEY" });
    await expect(load).rejects.toThrow(/needs OPENAI_API_KEY/);
  });

  it("names the npm package to install for a known provider whose package is missing", async () => {
    // The premise: the template does not ship @langchain/anthropic.
    expect(() => createRequire(import.meta.url).resolve("@langchain/anthropic")).toThrow();
    const load = loadChatModel("anthropic:claude-sonnet-4-5", {});
    await expect(load).rejects.toBeInstanceOf(MissingModelPackageError);
    await expect(load).rejects.toMatchObject({ code: "MISSING_PROVIDER_PACKAGE", packageName: "@langchain/anthropic" });
    await expect(load).rejects.toThrow('Model "anthropic:claude-sonnet-4-5" needs the package @langchain/anthropic, which is not installed: run `npm install @langchain/anthropic`');
  });

  it("refuses a provider initChatModel does not know, listing the ones it does", async () => {
    const load = loadChatModel("acme-ai:big-model", env);
    await expect(load).rejects.toMatchObject({ code: "UNKNOWN_PROVIDER", model: "acme-ai:big-model" });
    await expect(load).rejects.toThrow(/Unknown model provider "acme-ai".*one of: openai, anthropic,.*ollama/);
  });

  it("refuses a name without a provider, suggesting the one LangChain would guess", async () => {
    await expect(loadChatModel("gpt-4o-mini", env)).rejects.toMatchObject({ code: "MALFORMED_NAME" });
    await expect(loadChatModel("gpt-4o-mini", env)).rejects.toThrow(/not "<provider>:<model>".*here "openai:gpt-4o-mini"/);
    await expect(loadChatModel("claude-sonnet-4-5", env)).rejects.toThrow(/here "anthropic:claude-sonnet-4-5"/);
    await expect(loadChatModel("llama3.1", env)).rejects.toThrow(/as in "openai:gpt-4o-mini"/);
    await expect(loadChatModel("openai:", env)).rejects.toMatchObject({ code: "MALFORMED_NAME" });
  });
});
