import type { AIMessage } from "@langchain/core/messages";
import type { Verdict } from "../breaker/index.js";
import type { RunSettings } from "./run-settings.js";
import { pendingCalls, usageOf } from "./tool-calls.js";

/**
 * The breaker's verdict on every call of a message, in order. The message's
 * token usage rides on its first call, so it is counted once.
 */
export async function checkCalls(run: RunSettings, message: AIMessage): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  const usage = usageOf(message);
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
