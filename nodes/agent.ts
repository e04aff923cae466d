import { SystemMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Verdict } from "../breaker/index.js";
import { checkCalls } from "./check-calls.js";
import type { ResolveRun } from "./run-settings.js";
import type { GuardedState } from "./state.js";
import { STEPS_TO_END, stepsLeft } from "./step-budget.js";
import { normalizeToolCalls } from "./tool-calls.js";
import { emitVerdicts } from "./verdict-event.js";

/** What the agent node writes; only changed channels, since every write costs the graph a little on each step. */
export interface AgentUpdate {
  messages: BaseMessage[];
  verdicts?: Verdict[];
  sessionId?: string;
  halted?: boolean;
  outOfSteps?: boolean;
}

/**
 * The `agent` node: the chat model, with the tools bound, answers or asks for
 * tool calls; the breaker then judges every call in one batch, in this same
 * step, and the verdicts are written to state beside the message. The
 * router reads them from there, so a run resumed from this checkpoint, on
 * any worker, routes the same way without asking the breaker again. A step
 * retried before its checkpoint asks the model again: that is a new message,
 * with calls of its own.
 */
export function createAgentNode(resolve: ResolveRun) {
  return async function agent(state: GuardedState, config: LangGraphRunnableConfig): Promise<AgentUpdate> {
    const run = resolve(state, config);
    const prompt: BaseMessage[] = [new SystemMessage(run.systemPrompt), ...state.messages];
    let response: unknown;
    try {
      const model = run.model;
      response = await (model instanceof Promise ? await model : model).invoke(prompt, config);
    } catch (error) {
      throw run.redact.error(error);
    }
    const message = normalizeToolCalls(response as AIMessage, state.messages);
    const update: AgentUpdate = { messages: [message] };
    if (state.sessionId !== run.sessionId) update.sessionId = run.sessionId;
    if (state.halted) update.halted = false;
    const calls = message.tool_calls?.length ?? 0;
    // The router ends the run gracefully when another tools round would not fit in its recursion limit.
    const left = calls > 0 ? stepsLeft(state.messages, config) : undefined;
    const outOfSteps = left !== undefined && left < STEPS_TO_END;
    if (outOfSteps !== state.outOfSteps) update.outOfSteps = outOfSteps;
    if (calls > 0) {
      update.verdicts = await checkCalls(run, [...state.messages, message]);
      emitVerdicts(config, run.sessionId, update.verdicts);
    }
    return update;
  };
}
