import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { TokenUsage, Verdict } from "../breaker/index.js";
import type { RunSettings } from "./run-settings.js";
import { pendingCalls, usageOf } from "./tool-calls.js";

/**
 * Usage to bill with the last message's calls: its own, plus that of the
 * answers without tool calls since the previous message with calls. Those
 * never reach the breaker on their own, and a budget only matters at the
 * next check, so they ride along here.
 */
export function unbilledUsage(messages: readonly BaseMessage[]): TokenUsage | undefined {
  let total: TokenUsage | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (!AIMessage.isInstance(message)) continue;
    if (i < messages.length - 1 && (message.tool_calls?.length ?? 0) > 0) break;
    const usage = usageOf(message);
    if (!usage) continue;
    total = total
      ? { ...total, inputTokens: total.inputTokens + usage.inputTokens, outputTokens: total.outputTokens + usage.outputTokens }
      : usage;
  }
  return total;
}

/**
 * The breaker's verdict on every call of the last message, in order. The
 * unbilled usage rides on its first call, so it is counted once.
 */
export async function checkCalls(run: RunSettings, messages: readonly BaseMessage[]): Promise<Verdict[]> {
  const message = messages.at(-1);
  if (!message || !AIMessage.isInstance(message)) return [];
  const verdicts: Verdict[] = [];
  const usage = unbilledUsage(messages);
  for (const [index, call] of pendingCalls(message).entries()) {
    let verdict = run.memo.get(run.sessionId, call.id);
    if (!verdict) {
      verdict = await run.breaker.check(run.sessionId, {
        id: call.id,
        name: call.name || "(unnamed)",
        args: call.args,
        run: run.runId,
        ...(index === 0 && usage ? { usage } : {}),
      });
      run.memo.set(run.sessionId, verdict);
    }
    verdicts.push(verdict);
  }
  return verdicts;
}
