import { randomUUID } from "node:crypto";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver, LangGraphRunnableConfig } from "@langchain/langgraph";
import { BoundedCache, createBreaker, type Breaker, type BreakerStore } from "../breaker/index.js";
import { loadChatModel } from "../nodes/model/load-chat-model.js";
import type { GuardedState, ResolveRun, RunSettings } from "../nodes/run-settings.js";
import { currentRunId } from "../nodes/tool-calls.js";
import { secretsOf } from "../nodes/redact-secrets.js";
import { VerdictMemo } from "../nodes/verdict-memo.js";
import { toolNature } from "../tools/define-tool.js";
import { parseContext, policyFromContext, type AgentContext } from "./context.js";

/** What `buildGraph` can be given; anything left out gets the template's default. */
export interface GraphDeps {
  /** A chat model that supports bindTools; overrides the context's `model`. */
  model?: BaseChatModel;
  /** The tools offered to the model. */
  tools?: StructuredToolInterface[];
  /** A ready breaker; the context's limit knobs are then ignored. */
  breaker?: Breaker;
  /** Where breakers built from the context keep sessions. */
  store?: BreakerStore;
  /** Thread persistence for runs outside the LangGraph server (which brings its own). */
  checkpointer?: BaseCheckpointSaver;
  /** Environment for the model and store defaults (tests pass their own). */
  env?: NodeJS.ProcessEnv;
}

// Per-run overrides can make many policies; keep the most recent ones.
const MAX_CACHED_POLICIES = 32;
const LIMIT_FIELDS = [
  "maxIdenticalCalls",
  "halfOpenMargin",
  "windowSeconds",
  "maxCallsPerWindow",
  "maxCallsPerRun",
  "openSeconds",
] as const satisfies readonly (keyof AgentContext)[];

/**
 * Build the function every node uses to resolve its step. It runs several
 * times per tool call, so the costly parts are cached: breakers (and their
 * parsed policies) per distinct set of limits over one shared store, bound
 * models per model.
 */
export function createRunResolver(deps: Required<Pick<GraphDeps, "tools" | "store">> & GraphDeps): ResolveRun {
  const env = deps.env ?? process.env;
  const tools = new Map(deps.tools.map((t) => [t.name, t]));
  const natures = Object.fromEntries(deps.tools.map((t) => [t.name, toolNature(t)]));
  const breakers = new BoundedCache<string, Breaker>(MAX_CACHED_POLICIES);
  const bound = new WeakMap<BaseChatModel, RunSettings["model"]>();
  const memo = new VerdictMemo();
  const secrets = secretsOf(env);

  const breakerFor = (ctx: AgentContext): Breaker => {
    if (deps.breaker) return deps.breaker;
    // The limits are all the policy takes from the context (the natures are fixed per graph).
    const key = JSON.stringify(LIMIT_FIELDS.map((field) => ctx[field]));
    let breaker = breakers.get(key);
    if (!breaker) {
      breaker = createBreaker({ store: deps.store, policy: policyFromContext(ctx, natures) });
      breakers.set(key, breaker);
    }
    return breaker;
  };

  const modelFor = (name: string): RunSettings["model"] => {
    const chat = deps.model ?? loadChatModel(name, env);
    let withTools = bound.get(chat);
    if (!withTools) {
      if (typeof chat.bindTools !== "function") throw new Error(`The chat model "${name}" does not support tool calling.`);
      bound.set(chat, (withTools = chat.bindTools(deps.tools)));
    }
    return withTools;
  };

  return (state: GuardedState, config: LangGraphRunnableConfig): RunSettings => {
    // Parsing is cheaper than any cache key over the context (its prompt is long).
    const ctx = parseContext(config.context, env);
    const thread = config.configurable?.thread_id;
    const sessionId =
      ctx.sessionId || (typeof thread === "string" && thread ? thread : "") || state.sessionId || `run-${randomUUID()}`;
    return {
      sessionId,
      runId: currentRunId(state.messages),
      breaker: breakerFor(ctx),
      memo,
      systemPrompt: ctx.systemPrompt,
      get model() {
        return modelFor(ctx.model);
      },
      tools,
      secrets,
    };
  };
}
