import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { _inferModelProvider, initChatModel, MODEL_PROVIDER_CONFIG } from "langchain/chat_models/universal";
import { MissingModelPackageError, UnknownModelError } from "./model-errors.js";

/** Every provider LangChain's initChatModel knows, with the npm package its chat model lives in. */
export const PROVIDER_PACKAGES: ReadonlyMap<string, string> = new Map(
  Object.entries(MODEL_PROVIDER_CONFIG).map(([provider, config]) => [provider, config.package]),
);

/** The provider initChatModel would guess for a bare model name (`gpt-4o` → `openai`), for the error that asks for one. */
export function guessProvider(model: string): string | undefined {
  return _inferModelProvider(model);
}

/** Constructor fields of one provider's client: OpenAI's key and endpoint come from `env`, other providers read their own variables. */
function providerFields(name: string, provider: string, env: NodeJS.ProcessEnv): Record<string, unknown> {
  if (provider !== "openai") return {};
  if (!env.OPENAI_API_KEY) {
    throw new UnknownModelError("MISSING_API_KEY", name, `Model "${name}" needs OPENAI_API_KEY; set it, or use a scripted model such as "scripted:clean".`);
  }
  return { apiKey: env.OPENAI_API_KEY, configuration: env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {} };
}

// initChatModel rewrites Node's ERR_MODULE_NOT_FOUND into "Unable to import <package>"; either way the message names it.
function isMissingPackage(error: unknown, packageName: string): boolean {
  const message = error instanceof Error ? error.message : "";
  return message.includes(packageName) && /Unable to import|Cannot find (package|module)/.test(message);
}

/**
 * Build the chat model `<provider>:<model>` with LangChain's initChatModel,
 * so any provider it knows works once its package is installed. Returns the
 * provider's own client (a ChatOpenAI, a ChatAnthropic, ...), not
 * initChatModel's wrapper: once tools are bound, the wrapper builds and keeps
 * one client per distinct call config, so a thread id per run grows it
 * without bound on a server (langchainjs#9880 trimmed the key, not the
 * growth); the caller's bounded cache holds the clients instead.
 */
export async function loadProviderModel(name: string, provider: string, model: string, env: NodeJS.ProcessEnv): Promise<BaseChatModel> {
  const packageName = PROVIDER_PACKAGES.get(provider);
  if (!packageName) {
    throw new UnknownModelError(
      "UNKNOWN_PROVIDER",
      name,
      `Unknown model provider "${provider}" in "${name}". Use "<provider>:<model>" with one of: ${[...PROVIDER_PACKAGES.keys()].join(", ")}; or "scripted:<scenario>".`,
    );
  }
  const fields = providerFields(name, provider, env);
  try {
    const configurable = await initChatModel(model, { modelProvider: provider, maxRetries: 1, ...fields });
    // The client initChatModel has just built (it builds one eagerly, for the empty call config).
    return await configurable._getModelInstance();
  } catch (error) {
    if (isMissingPackage(error, packageName)) throw new MissingModelPackageError(name, packageName);
    throw error;
  }
}
