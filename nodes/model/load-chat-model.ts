import { createHash } from "node:crypto";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { BoundedCache } from "../../breaker/index.js";
import { UnknownModelError } from "./model-errors.js";
import { guessProvider, loadProviderModel } from "./provider-model.js";

export { MissingModelPackageError, UnknownModelError, type ModelErrorCode } from "./model-errors.js";

/** The model used when none is configured: OpenAI with a key, a scripted runaway without. */
export function defaultModelName(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENAI_API_KEY ? "openai:gpt-4o-mini" : "scripted:stutter";
}

// Model names come from the run's context, so from callers: keep the most recent clients, not one per name ever asked for.
const MAX_CACHED_MODELS = 32;
const cache = new BoundedCache<string, Promise<BaseChatModel>>(MAX_CACHED_MODELS);

/** The scripted model replaying a demo scenario: loaded only when a run names `scripted:...`, so production never imports it. */
async function loadScriptedModel(name: string, scenario: string): Promise<BaseChatModel> {
  const { SCENARIOS, ScriptedChatModel } = await import("../../demo/index.js");
  const found = SCENARIOS.get(scenario);
  if (!found) {
    throw new UnknownModelError(
      "UNKNOWN_SCENARIO",
      name,
      `Unknown model "${name}". Use "scripted:<scenario>" with one of: ${[...SCENARIOS.keys()].join(", ")}; or "<provider>:<model>".`,
    );
  }
  return new ScriptedChatModel({ scenario: found });
}

/** Split `<provider>:<model>`; a bare name is refused, with the provider LangChain would guess as a suggestion. */
function parseModelName(name: string): { provider: string; model: string } {
  const colon = name.indexOf(":");
  const provider = colon > 0 ? name.slice(0, colon) : "";
  const model = colon > 0 ? name.slice(colon + 1) : "";
  if (provider && model) return { provider, model };
  const guess = colon < 0 && name ? guessProvider(name) : undefined;
  throw new UnknownModelError(
    "MALFORMED_NAME",
    name,
    `Model "${name}" is not "<provider>:<model>": name the provider, ${guess ? `here "${guess}:${name}"` : 'as in "openai:gpt-4o-mini"'}, or use "scripted:<scenario>".`,
  );
}

/**
 * Load a chat model by name: `<provider>:<model>` for any provider LangChain's
 * initChatModel knows whose package is installed (`openai:` ships with the
 * template and honours OPENAI_API_KEY and OPENAI_BASE_URL, so any
 * OpenAI-compatible server works), or `scripted:<scenario>`. Clients are
 * cached by name and environment, so a run does not rebuild them; the cache
 * is bounded, since callers choose the names.
 */
export async function loadChatModel(name: string, env: NodeJS.ProcessEnv = process.env): Promise<BaseChatModel> {
  // The key's hash, not a flag: a graph built with another key must not reuse a client holding the first one.
  const apiKey = env.OPENAI_API_KEY ? createHash("sha256").update(env.OPENAI_API_KEY).digest("base64url") : "";
  const key = `${name}\u0000${env.OPENAI_BASE_URL ?? ""}\u0000${apiKey}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const { provider, model } = parseModelName(name);
  const loading = provider === "scripted" ? loadScriptedModel(name, model) : loadProviderModel(name, provider, model, env);
  // Concurrent runs naming one model share a single load; a failed one is forgotten, so a fix (a key, a package) is picked up.
  cache.set(key, loading);
  loading.catch(() => {
    if (cache.get(key) === loading) cache.delete(key);
  });
  return loading;
}
