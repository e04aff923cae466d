import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { AIMessageChunk } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Breaker } from "../breaker/index.js";
import type { Redactor } from "./redact.js";
import type { GuardedState } from "./state.js";

/** A chat model with the tools bound. */
export type BoundModel = Runnable<BaseLanguageModelInput, AIMessageChunk>;

/** Everything a node needs for one step, resolved from the state and the run's context. */
export interface RunSettings {
  /** The breaker session: the thread's, a caller's (when the operator allows it), else one per run. */
  sessionId: string;
  /**
   * What makes the breaker's call ids unique in a session several threads may
   * share: the thread, else the session (a run without a thread has its own).
   */
  callScope: string;
  /** The run window: one per user message. */
  runId: string;
  breaker: Breaker;
  systemPrompt: string;
  /**
   * The chat model with the tools bound: the graph's own model as it is, a model named by the
   * run's context as a promise, since a provider's package is imported on first use. Reading it
   * throws (or rejects) for a model that cannot call tools.
   */
  model: BoundModel | Promise<BoundModel>;
  tools: ReadonlyMap<string, StructuredToolInterface>;
  /** Masks secrets in what leaves the graph (errors, tool output, log lines). */
  redact: Redactor;
}

/** Resolves the settings of a step; built once per graph by `buildGraph`. */
export type ResolveRun = (state: GuardedState, config: LangGraphRunnableConfig) => RunSettings;
