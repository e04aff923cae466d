import { createHash } from "node:crypto";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { BoundedCache } from "../../breaker/index.js";
import { SCENARIOS, ScriptedChatModel } from "../../demo/index.js";

/** The model used when none is configured: OpenAI with a key, a scripted runaway without. */
export function defaultModelName(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENAI_API_KEY ? "openai:gpt-4o-mini" : "scripted:stutter";
}

/** Thrown for a model name this template cannot load, with the names it can. */
export class UnknownModelError extends Error {
  override readonly name = "UnknownModelError";
}

// Model names come from the run's context, so from callers: keep the most recent clients, not one per name ever asked for.
const MAX_CACHED_MODELS = 32;
const cache = new BoundedCache<string, BaseChatModel>(MAX_CACHED_MODELS);

/**
 * Load a chat model by name: `openai:<model>` (OPENAI_API_KEY, OPENAI_BASE_URL
 * honoured, so any OpenAI-compatible server works) or `scripted:<scenario>`.
 * Models are cached by name and environment, so a run does not rebuild
 * clients; the cache is bounded, since callers choose the names.
 */
export function loadChatModel(name: string, env: NodeJS.ProcessEnv = process.env): BaseChatModel {
  // The key's hash, not a flag: a graph built with another key must not reuse a client holding the first one.
  const apiKey = env.OPENAI_API_KEY ? createHash("sha256").update(env.OPENAI_API_KEY).digest("base64url") : "";
  const key = `${name}\u0000${env.OPENAI_BASE_URL ?? ""}\u0000${apiKey}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const [provider, ...rest] = name.split(":");
  const id = rest.join(":");
  let model: BaseChatModel;
  if (provider === "openai" && id) {
    if (!env.OPENAI_API_KEY) {
      throw new UnknownModelError(`Model "${name}" needs OPENAI_API_KEY; set it, or use a scripted model such as "scripted:clean".`);
    }
    model = new ChatOpenAI({
      model: id,
      apiKey: env.OPENAI_API_KEY,
      configuration: env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {},
      maxRetries: 1,
    });
  } else if (provider === "scripted" && SCENARIOS.has(id)) {
    model = new ScriptedChatModel({ scenario: SCENARIOS.get(id)! });
  } else {
    throw new UnknownModelError(
      `Unknown model "${name}". Use "openai:<model>" or "scripted:<scenario>" with one of: ${[...SCENARIOS.keys()].join(", ")}.`,
    );
  }
  cache.set(key, model);
  return model;
}
