import { SystemMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { SYSTEM_PROMPT } from "./prompts.js";

/**
 * The same agent with LangGraph's plain `toolsCondition` router and no
 * breaker: the baseline the demo and the benchmarks compare against. Only the
 * recursion limit (a turn ceiling) stops it.
 */
export function buildUnguardedGraph(deps: { model: BaseChatModel; tools: StructuredToolInterface[] }) {
  if (typeof deps.model.bindTools !== "function") throw new Error("The chat model does not support tool calling.");
  const model = deps.model.bindTools(deps.tools);
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [await model.invoke([new SystemMessage(SYSTEM_PROMPT), ...state.messages])],
    }))
    .addNode("tools", new ToolNode(deps.tools, { handleToolErrors: true }))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", "__end__"])
    .addEdge("tools", "agent")
    .compile();
}

/** The recursion limit that lets an agent -> tools loop run at most `turns` model turns. */
export function recursionLimitForTurns(turns: number): number {
  return turns * 2;
}
