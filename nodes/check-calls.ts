import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { addUsage, usageOf, type TokenUsage, type ToolCallRequest, type Verdict } from "../breaker/index.js";
import type { Redactor } from "./redact.js";
import type { RunSettings } from "./run-settings.js";
import { breakerCallId, pendingCalls, type PendingCall } from "./tool-calls.js";

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
    // Read as the offline evaluator reads a recorded message, so CI bills what the runtime bills.
    total = addUsage(usageOf({ usage_metadata: message.usage_metadata, response_metadata: message.response_metadata }), total);
  }
  return total;
}

/**
 * What the breaker is asked about the calls of the last message, in order,
 * in the run `run`: each known by `idOf(call)`, and the usage not billed yet
 * riding on the first, so it is counted once (`bill: false` when an earlier
 * check of the same message carried it). The graph and the middleware both
 * ask through here.
 */
export function breakerRequests(
  messages: readonly BaseMessage[],
  calls: readonly PendingCall[],
  run: string,
  { idOf, bill = true }: { idOf?: (call: PendingCall) => string; bill?: boolean } = {},
): ToolCallRequest[] {
  const usage = bill ? unbilledUsage(messages) : undefined;
  return calls.map((call, index) => ({
    id: idOf ? idOf(call) : call.id,
    name: call.name || "(unnamed)",
    args: call.args,
    run,
    ...(index === 0 && usage ? { usage } : {}),
  }));
}

/**
 * The breaker's verdicts on every call of the last message, in order, from
 * one batch check (one store round trip). Each call is known to the breaker
 * by its namespaced id, so a re-check of the same message (a retried step,
 * another worker) is answered from the store without counting anything
 * twice. Texts a store error may have put in a verdict are redacted.
 */
export async function checkCalls(run: RunSettings, messages: readonly BaseMessage[]): Promise<Verdict[]> {
  const message = messages.at(-1);
  if (!message || !AIMessage.isInstance(message)) return [];
  const calls = pendingCalls(message);
  if (calls.length === 0) return [];
  const requests = breakerRequests(messages, calls, run.runId);
  // Namespaced in place rather than through an `idOf` closure made on every check.
  for (const request of requests) request.id = breakerCallId(run.callScope, message.id ?? "", request.id);
  const verdicts = await run.breaker.checkBatch(run.sessionId, requests);
  return verdicts.map((v) => redactVerdict(v, run.redact));
}

/** The verdict with the texts a store error can carry (findings, degraded reason) masked; the verdict itself when there are none. */
export function redactVerdict(verdict: Verdict, redact: Redactor): Verdict {
  if (verdict.findings.length === 0 && !verdict.degraded) return verdict;
  return {
    ...verdict,
    findings: verdict.findings.map((f) => ({ ...f, message: redact.text(f.message) })),
    ...(verdict.advisory ? { advisory: redact.text(verdict.advisory) } : {}),
    ...(verdict.degraded ? { degraded: { reason: redact.text(verdict.degraded.reason) } } : {}),
  };
}
