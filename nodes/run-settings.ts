import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Breaker, Verdict } from "../breaker/index.js";
import type { VerdictMemo } from "./verdict-memo.js";

/** The slice of graph state the nodes read and write. */
export interface GuardedState {
  messages: BaseMessage[];
  sessionId: string;
  halted: boolean;
  verdicts: Verdict[];
}

/** Everything a node needs for one step, resolved from the state and the run's context. */
export interface RunSettings {
  /** The breaker session: an explicit id, else the thread, else one per run. */
  sessionId: string;
  /** The run window: one per user message. */
  runId: string;
  breaker: Breaker;
  /** Verdicts the router already obtained, so nodes do not ask the store again. */
  memo: VerdictMemo;
  systemPrompt: string;
  /** The chat model with the tools bound. */
  model: Runnable<BaseLanguageModelInput, AIMessageChunk>;
  tools: ReadonlyMap<string, StructuredToolInterface>;
  /** Secrets to mask in errors that leave the graph (API key, Redis password). */
  secrets: readonly string[];
}

/** Resolves the settings of a step; built once per graph by `buildGraph`. */
export type ResolveRun = (state: GuardedState, config: LangGraphRunnableConfig) => RunSettings;
