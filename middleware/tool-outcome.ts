import { ToolMessage } from "@langchain/core/messages";
import { isCommand, type Command } from "@langchain/langgraph";
import type { RawOutcome } from "../breaker/index.js";
import { commandReply, withAdvisoryText } from "../nodes/run-tool.js";

/** What a wrapped tool call returned: a ToolMessage, or a Command (which may carry one). */
export type ToolResult = ToolMessage | Command;

/** The ToolMessage answering `callId` in a result, if it has one. */
function replyIn(result: ToolResult, callId: string): ToolMessage | undefined {
  return ToolMessage.isInstance(result) ? result : commandReply(result, callId);
}

/**
 * The outcome the breaker is told: an error ToolMessage (a tool error turned
 * into a reply, an unknown tool, invalid arguments) is an error, any other
 * reply its content; a Command without a reply, its update.
 */
export function outcomeOf(result: ToolResult, callId: string): RawOutcome {
  const reply = replyIn(result, callId);
  if (!reply) return { output: isCommand(result) ? result.update : result };
  return reply.status === "error" ? { error: reply.content } : { output: reply.content };
}

/**
 * The result with the HALF_OPEN advisory appended to its reply, as the
 * graph's tools node does. A Command passes unchanged: its update is the
 * tool's to decide.
 */
export function withAdvisory(result: ToolResult, advisory: string): ToolResult {
  if (!ToolMessage.isInstance(result)) return result;
  return new ToolMessage({
    content: withAdvisoryText(result.content, advisory),
    tool_call_id: result.tool_call_id,
    ...(result.id ? { id: result.id } : {}),
    ...(result.name ? { name: result.name } : {}),
    ...(result.status ? { status: result.status } : {}),
    ...(result.artifact !== undefined ? { artifact: result.artifact } : {}),
    additional_kwargs: result.additional_kwargs,
    response_metadata: result.response_metadata,
  });
}
