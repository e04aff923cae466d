import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver, LangGraphRunnableConfig } from "@langchain/langgraph";
import {
  BoundedCache,
  createBreaker,
  deriveBreaker,
  withToolDeclarations,
  type Breaker,
  type BreakerStore,
  type Policy,
  type ToolDeclaration,
} from "../breaker/index.js";
import { loadChatModel } from "../nodes/model/load-chat-model.js";
import { createRedactor, type Redactor } from "../nodes/redact.js";
import type { OnTrip } from "../nodes/route.js";
import type { BoundModel, ResolveRun, RunSettings } from "../nodes/run-settings.js";
import type { GuardedState } from "../nodes/state.js";
import { currentRunId } from "../nodes/tool-calls.js";
import { toolDeclaration } from "../tools/define-tool.js";
import { InvalidContextError, parseContext, type AgentContext } from "./context.js";
import { deploymentFromEnv, KNOB_VARS, type Deployment } from "./deployment.js";
import { applyKnobs, knobLimits, knobSpec, LIMIT_KNOBS, noKnobs } from "./limit-knobs.js";
import { checkCallerSession, sessionIdFor } from "./session-id.js";
import { createStoreFromEnv } from "./store-from-env.js";

/** What `buildGraph` can be given; anything left out gets the template's default. */
export interface GraphDeps {
  /** A chat model that supports bindTools; overrides the context's `model`. */
  model?: BaseChatModel;
  /** The tools offered to the model. */
  tools?: StructuredToolInterface[];
  /**
   * A ready breaker. Its policy is the deployment's (the ceilings a run's
   * context may tighten); tools that declare a nature with defineTool keep it
   * unless that policy states one for the tool.
   */
  breaker?: Breaker;
  /** Where breakers built from the environment keep sessions. */
  store?: BreakerStore;
  /** Thread persistence for runs outside the LangGraph server (which brings its own). */
  checkpointer?: BaseCheckpointSaver;
  /** Environment for the model, the store and the deployment's settings. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the server log lines go (one per store outage); default console.warn. */
  log?: (line: string) => void;
}

/** What the graph builds on: the step resolver, the context check run before anything is written, and the policy in force. */
export interface RunResolver {
  resolve: ResolveRun;
  /** Throws an InvalidContextError for a context the graph cannot run with. */
  checkContext(context: unknown): void;
  /** What a trip does in this run (its context's `onTrip`), for the router. */
  onTrip(config: LangGraphRunnableConfig): OnTrip;
  /** The deployment's policy (natures included): defaults and ceilings of every run. */
  policy: Policy;
  /** The store behind every breaker of the graph. */
  store: BreakerStore;
  redact: Redactor;
}

// Per-run limits can make many policies; keep the most recent ones. Model names are caller-chosen too.
const MAX_CACHED_POLICIES = 32;

/** Refuse context limits that would loosen the deployment's, naming the field and the ceiling (or floor). */
function checkCeilings(ctx: AgentContext, policy: Policy): void {
  const limits = knobLimits(policy);
  for (const knob of LIMIT_KNOBS) {
    const value = ctx[knob];
    const { bound, policyField } = knobSpec(knob);
    const limit = (limits as Partial<Record<string, number>>)[knob];
    if (value === undefined || bound === "warning" || limit === undefined) continue;
    if (bound === "ceiling" ? value <= limit : value >= limit) continue;
    const word = bound === "ceiling" ? "above" : "below";
    throw new InvalidContextError(
      bound === "ceiling" ? "ABOVE_CEILING" : "BELOW_FLOOR",
      knob,
      `Context field "${knob}" is ${value}, ${word} this deployment's ${bound} of ${limit}: a run may tighten the breaker's limits, never loosen them. ` +
        `The operator sets the ${bound} with ${KNOB_VARS[knob]} or ${policyField} in the policy file.`,
    );
  }
}

/** The breaker every run starts from: the injected one (with the tools' natures), else one over the store and the deployment's policy. */
function baseBreaker(deps: GraphDeps, deployment: Deployment, declarations: Record<string, ToolDeclaration>, store: BreakerStore, log: (line: string) => void): Breaker {
  const given = deps.breaker;
  if (!given) return createBreaker({ store, policy: withToolDeclarations(deployment.policy, declarations) });
  const policy = withToolDeclarations(given.policy, declarations);
  if (policy === given.policy) return given;
  try {
    return deriveBreaker(given, policy);
  } catch {
    log("[guarded-agent] the injected breaker was not made by createBreaker: it is used as given, without the natures the tools declare.");
    return given;
  }
}

/**
 * Build the function every node uses to resolve its step, and the context
 * check. It runs several times per tool call, so the costly parts are
 * cached: parsed contexts per context object, breakers per distinct set of
 * limits (derived from the base breaker: one store, one set of listeners),
 * bound models per model.
 */
export function createRunResolver(deps: GraphDeps & { tools: StructuredToolInterface[] }): RunResolver {
  const env = deps.env ?? process.env;
  const log = deps.log ?? ((line: string) => console.warn(line));
  const deployment = deploymentFromEnv(env);
  const tools = new Map(deps.tools.map((t) => [t.name, t]));
  const declarations: Record<string, ToolDeclaration> = {};
  for (const t of deps.tools) {
    const declared = toolDeclaration(t);
    if (declared) declarations[t.name] = declared;
  }
  const store = deps.breaker?.store ?? deps.store ?? createStoreFromEnv(env);
  const base = baseBreaker(deps, deployment, declarations, store, log);
  const breakers = new BoundedCache<string, Breaker>(MAX_CACHED_POLICIES);
  const contexts = new WeakMap<object, AgentContext>();
  let emptyContext: AgentContext | undefined;
  const bound = new WeakMap<BaseChatModel, BoundModel>();
  const redact = createRedactor(env);

  const contextOf = (raw: unknown): AgentContext => {
    if (raw === undefined || raw === null) return (emptyContext ??= parseContext({}, env));
    if (typeof raw !== "object") return parseContext(raw, env);
    let ctx = contexts.get(raw);
    if (!ctx) contexts.set(raw, (ctx = parseContext(raw, env)));
    return ctx;
  };

  // A parsed context is never changed, so its breaker is found once per context object.
  const breakerOf = new WeakMap<AgentContext, Breaker>();
  const breakerFor = (ctx: AgentContext): Breaker => {
    const known = breakerOf.get(ctx);
    if (known) return known;
    if (noKnobs(ctx)) {
      breakerOf.set(ctx, base);
      return base;
    }
    const key = JSON.stringify(LIMIT_KNOBS.map((knob) => ctx[knob]));
    let breaker = breakers.get(key);
    if (!breaker) {
      checkCeilings(ctx, base.policy);
      breaker = deriveOrCreate(base, applyKnobs(base.policy, ctx, "tighten"));
      breakers.set(key, breaker);
    }
    breakerOf.set(ctx, breaker);
    return breaker;
  };

  const withTools = (chat: BaseChatModel, name: string): BoundModel => {
    let model = bound.get(chat);
    if (!model) {
      if (typeof chat.bindTools !== "function") throw new Error(`The chat model "${name}" does not support tool calling.`);
      bound.set(chat, (model = chat.bindTools(deps.tools)));
    }
    return model;
  };
  // An injected model is at hand: the agent step gets it bound, without a promise to wait on (two per tool call).
  const modelFor = (name: string): BoundModel | Promise<BoundModel> =>
    deps.model ? withTools(deps.model, name) : loadChatModel(name, env).then((chat) => withTools(chat, name));

  const resolve: ResolveRun = (state: GuardedState, config: LangGraphRunnableConfig): RunSettings => {
    const ctx = contextOf(config.context);
    const sessionId = sessionIdFor(ctx, config, state.sessionId, deployment);
    const thread = config.configurable?.thread_id;
    const callScope = typeof thread === "string" && thread ? thread : sessionId;
    return new StepSettings(state, ctx, sessionId, callScope, breakerFor(ctx), tools, redact, modelFor);
  };

  const checkContext = (context: unknown): void => {
    const ctx = contextOf(context);
    checkCallerSession(ctx, deployment);
    breakerFor(ctx);
  };

  const onTrip = (config: LangGraphRunnableConfig): OnTrip => contextOf(config.context).onTrip;

  return { resolve, checkContext, onTrip, policy: base.policy, store, redact };
}

// A derived breaker shares the base's listeners; a base made elsewhere gets a plain breaker over its store.
function deriveOrCreate(base: Breaker, policy: Policy): Breaker {
  try {
    return deriveBreaker(base, policy);
  } catch {
    return createBreaker({ store: base.store, policy });
  }
}

/**
 * One step's settings. A class rather than an object literal with getters:
 * one is made on every node call, and a literal's accessors are defined one
 * by one on each new object.
 */
class StepSettings implements RunSettings {
  private foundRunId: string | undefined;

  constructor(
    private readonly state: GuardedState,
    private readonly ctx: AgentContext,
    readonly sessionId: string,
    readonly callScope: string,
    readonly breaker: Breaker,
    readonly tools: ReadonlyMap<string, StructuredToolInterface>,
    readonly redact: Redactor,
    private readonly modelFor: (name: string) => BoundModel | Promise<BoundModel>,
  ) {}

  get systemPrompt(): string {
    return this.ctx.systemPrompt;
  }

  /** Only a check needs it, and finding it reads every human message of the thread. */
  get runId(): string {
    return (this.foundRunId ??= currentRunId(this.state.messages));
  }

  get model(): BoundModel | Promise<BoundModel> {
    return this.modelFor(this.ctx.model);
  }
}
