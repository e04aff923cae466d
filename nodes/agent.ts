import { AIMessage, AIMessageChunk, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { GuardedState, ResolveRun } from "./run-settings.js";
import { redactError } from "./redact-secrets.js";
import { normalizeToolCalls, toolCallIds } from "./tool-calls.js";

/** The `agent` node: the chat model, with the tools bound, answers or asks for tool calls. */
export function createAgentNode(resolve: ResolveRun) {
  return async function agent(state: GuardedState, config: LangGraphRunnableConfig) {
    const run = resolve(state, config);
    const prompt: BaseMessage[] = [new SystemMessage(run.systemPrompt), ...state.messages];
    const response = await run.model.invoke(prompt, config).catch((error: unknown) => {
      throw redactError(error, run.secrets);
    });
    // Streaming models hand back a chunk; the thread keeps a plain AIMessage.
    const message = AIMessageChunk.isInstance(response)
      ? new AIMessage({
          id: response.id,
          content: response.content,
          tool_calls: response.tool_calls,
          invalid_tool_calls: response.invalid_tool_calls,
          usage_metadata: response.usage_metadata,
          response_metadata: response.response_metadata,
          additional_kwargs: response.additional_kwargs,
        })
      : (response as unknown as AIMessage);
    // Only changed channels are written: every write costs the graph a little on each step.
    return {
      messages: [normalizeToolCalls(message, toolCallIds(state.messages))],
      ...(state.sessionId === run.sessionId ? {} : { sessionId: run.sessionId }),
      ...(state.halted ? { halted: false } : {}),
    };
  };
}
