import { ToolMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { Verdict } from "../breaker/index.js";
import { checkCalls } from "./check-calls.js";
import { refusalReplies } from "./circuit-fallback.js";
import type { GuardedState, ResolveRun } from "./run-settings.js";
import { runTool } from "./run-tool.js";
import { lastAIMessage, pendingCalls, type PendingCall } from "./tool-calls.js";

/** Tag in front of the advisory a HALF_OPEN circuit adds to a tool result. */
export const ADVISORY_TAG = "[circuit_breaker: HALF_OPEN]";

/**
 * The `tools` node: runs the calls the router approved, in parallel, reports
 * each outcome to the breaker and answers every call with a ToolMessage.
 */
export function createToolsNode(resolve: ResolveRun) {
  return async function tools(state: GuardedState, config: LangGraphRunnableConfig) {
    const message = lastAIMessage(state.messages);
    if (!message) return {};
    const run = resolve(state, config);
    const verdicts = await checkCalls(run, state.messages);

    const calls = pendingCalls(message);
    if (verdicts.some((v) => !v.allowed)) {
      // The router sends refused batches to circuit_fallback; a state routed
      // here anyway gets the same refusal, and no call of the batch runs.
      return { messages: refusalReplies(calls, verdicts), verdicts };
    }

    const answer = async (call: PendingCall, verdict: Verdict): Promise<ToolMessage> => {
      const result = await runTool(run.tools, call, config);
      await run.breaker.complete(run.sessionId, verdict.callId, result.outcome);
      const content = verdict.advisory ? `${result.content}\n\n${ADVISORY_TAG} ${verdict.advisory}` : result.content;
      return new ToolMessage({
        tool_call_id: call.id,
        name: call.name,
        status: result.status,
        content,
        artifact: { circuit: verdict },
      });
    };

    const messages = await Promise.all(calls.map((call, i) => answer(call, verdicts[i]!)));
    config.writer?.({ type: "breaker_verdict", sessionId: run.sessionId, verdicts });
    return { messages, verdicts };
  };
}
