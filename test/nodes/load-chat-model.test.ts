import { describe, expect, it } from "vitest";
import { loadChatModel } from "../../nodes/model/load-chat-model.js";

describe("loadChatModel", () => {
  const env = { OPENAI_API_KEY: "sk-load-model-test-0123456789" };

  it("reuses the client for a model name asked for again", () => {
    expect(loadChatModel("openai:gpt-4o-mini", env)).toBe(loadChatModel("openai:gpt-4o-mini", env));
  });

  it("keeps only recent clients: names chosen by callers cannot grow the cache without bound", () => {
    const first = loadChatModel("openai:caller-model-0", env);
    for (let i = 1; i <= 200; i++) loadChatModel(`openai:caller-model-${i}`, env);
    const recent = loadChatModel("openai:caller-model-200", env);
    expect(loadChatModel("openai:caller-model-200", env)).toBe(recent);
    // The first one was dropped long ago: asking again builds a new client.
    expect(loadChatModel("openai:caller-model-0", env)).not.toBe(first);
  });
});
