import { randomUUID } from "node:crypto";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, isGraphBubbleUp } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { Breaker, ToolCallRequest as BreakerCall } from "../breaker/index.js";
import { breakerRequests } from "../nodes/check-calls.js";
import { fallbackAnswer, partialResults, refusalReplies } from "../nodes/circuit-fallback.js";
import { traceTrip } from "../nodes/trip-trace.js";
import { currentRunId, lastAIMessage, normalizeToolCalls, pendingCalls, toolCallIds, type PendingCall } from "../nodes/tool-calls.js";
import { verdictEvent, type VerdictEvent } from "../nodes/verdict-event.js";
import { LoopBreakerTrippedError } from "./errors.js";
import { resolveOptions, type LoopBreakerMiddlewareOptions, type SessionRuntime } from "./options.js";
import { LoopBreakerStateSchema } from "./state.js";
import { breakerSource } from "./tool-natures.js";
import { outcomeOf, withAdvisory } from "./tool-outcome.js";

/** The middleware's name in createAgent (one instance per agent). */
export const LOOP_BREAKER_MIDDLEWARE_NAME = "LoopBreakerMiddleware";

/** Where a createAgent user raises the limits, for the answer after a trip. */
const RAISE_LIMITS_IN_POLICY = "the limits in the breaker policy given to loopBreakerMiddleware";

/** The custom stream event after each decision: the graph's own (nodes/verdict-event.ts). */
export type BreakerVerdictEvent = VerdictEvent;

/** The calls of `message` no ToolMessage in `messages` answers yet (another middleware may have answered some). */
function unanswered(message: AIMessage, messages: readonly BaseMessage[]): PendingCall[] {
  const answered = new Set(messages.filter((m) => ToolMessage.isInstance(m)).map((m) => (m as ToolMessage).tool_call_id));
  return pendingCalls(message).filter((c) => !answered.has(c.id));
}

/** The breaker's requests for `calls`, calls of the last message, in the run the thread is in (see breakerRequests). */
function requestsFor(messages: readonly BaseMessage[], calls: readonly PendingCall[], bill = true): BreakerCall[] {
  return breakerRequests(messages, calls, currentRunId(messages), { bill });
}

/**
 * The circuit breaker as LangChain v1 `createAgent` middleware. Every tool
 * call of a model message is judged in one `checkBatch` before any of them
 * runs, and each outcome is reported after it ran; HALF_OPEN results carry
 * the same advisory as the graph's. On a trip the whole message is refused,
 * then the run ends with an answer, throws, or gives the model a turn to
 * answer (`exitBehavior`). With no argument: a MemoryStore and the default
 * policy, plus the natures the tools declare. Put it first in the agent's
 * middleware list, so other model-call wrappers (retries) run inside it.
 */
export function loopBreakerMiddleware(options: LoopBreakerMiddlewareOptions = {}) {
  const settings = resolveOptions(options);
  const breakers = breakerSource(settings);

  const sessionOf = (state: { breakerSessionId?: string }, runtime: SessionRuntime): string =>
    state.breakerSessionId || settings.sessionFor(runtime) || runtime.configurable?.thread_id || "";

  return createMiddleware({
    name: LOOP_BREAKER_MIDDLEWARE_NAME,
    stateSchema: LoopBreakerStateSchema,

    // Once per run: the session, and a run that has not tripped yet.
    beforeAgent: (state, runtime) => ({
      breakerSessionId:
        settings.sessionFor(runtime) || runtime.configurable?.thread_id || state.breakerSessionId || `run-${randomUUID()}`,
      breakerTripped: false,
      breakerVerdicts: [],
    }),

    // The check sits here, before the model's message enters the thread: the
    // tools (and their natures) are known, and "error" can throw without
    // leaving the thread with tool calls that no reply will ever answer.
    wrapModelCall: async (request, handler) => {
      const breaker = breakers.forTools(request.tools);
      const response = await handler(request);
      if (!AIMessage.isInstance(response)) return response;
      const history = request.state.messages;
      // Unique ids: the breaker counts a call once per id, and providers reuse ids like "call_0".
      // createAgent keeps the handler's message object, so the normalized calls go onto it.
      const normalized = normalizeToolCalls(response, history, toolCallIds(history));
      response.tool_calls = normalized.tool_calls;
      response.invalid_tool_calls = [];
      const calls = pendingCalls(response);
      if (calls.length === 0) return response;
      const sessionId = sessionOf(request.state, request.runtime);
      const verdicts = await breaker.checkBatch(sessionId, requestsFor([...history, response], calls));
      const trip = verdicts.find((v) => !v.allowed);
      if (settings.exitBehavior === "error" && trip) {
        await traceTrip(sessionId, trip, "error");
        throw new LoopBreakerTrippedError(sessionId, verdicts);
      }
      return new Command({ update: { breakerVerdicts: verdicts } });
    },

    // Acts on the verdicts: a refused message is answered here, and the run
    // ends or goes back to the model. Calls the model-call check did not see
    // (another middleware replaced the message) are checked now.
    afterModel: {
      canJumpTo: ["end", "model"],
      hook: async (state, runtime) => {
        const message = lastAIMessage(state.messages);
        if (!message) return undefined;
        const calls = unanswered(message, state.messages);
        if (calls.length === 0) return undefined;
        const sessionId = sessionOf(state, runtime);
        const known = new Map(state.breakerVerdicts.map((v) => [v.callId, v]));
        const unseen = calls.filter((c) => !known.has(c.id));
        if (unseen.length > 0) {
          const billed = unseen.length < calls.length;
          const more = await breakers.current().checkBatch(sessionId, requestsFor(state.messages, unseen, !billed));
          for (const v of more) known.set(v.callId, v);
        }
        const verdicts = calls.map((c) => known.get(c.id)!);
        const refused = verdicts.some((v) => !v.allowed);
        runtime.writer?.(verdictEvent(sessionId, verdicts, refused));
        if (!refused) return unseen.length > 0 ? { breakerVerdicts: verdicts } : undefined;

        const trip = verdicts.find((v) => !v.allowed)!;
        // Reached only for calls the model-call check did not see; the message is in the thread already.
        if (settings.exitBehavior === "error") {
          await traceTrip(sessionId, trip, "error");
          throw new LoopBreakerTrippedError(sessionId, verdicts);
        }
        const replies = refusalReplies(calls, verdicts);
        if (settings.exitBehavior === "continue" && !state.breakerTripped) {
          await traceTrip(sessionId, trip, "continue");
          return { messages: replies, breakerVerdicts: verdicts, breakerTripped: true, jumpTo: "model" as const };
        }
        await traceTrip(sessionId, trip, "end");
        const answer = new AIMessage({ content: fallbackAnswer(trip, partialResults(state.messages), RAISE_LIMITS_IN_POLICY) });
        return { messages: [...replies, answer], breakerVerdicts: verdicts, breakerTripped: true, jumpTo: "end" as const };
      },
    },

    // Runs an approved call and reports how it ended. Errors keep
    // createAgent's semantics (they propagate), but the breaker hears of them.
    wrapToolCall: async (request, handler) => {
      const { toolCall, state } = request;
      const id = toolCall.id ?? "";
      const sessionId = sessionOf(state, request.runtime);
      const breaker: Breaker = breakers.current();
      // A call that reached the tools without a verdict in state (a jump to
      // "tools") is checked here; checks are idempotent per call id.
      const call: PendingCall = { id, name: toolCall.name, args: toolCall.args };
      const verdict =
        state.breakerVerdicts?.find((v) => v.callId === id) ??
        (await breaker.check(sessionId, requestsFor(state.messages, [call], false)[0]!));
      if (!verdict.allowed) return refusalReplies([call], [verdict])[0]!;

      let result;
      try {
        result = await handler(request);
      } catch (error) {
        // An interrupt pauses the run; the call has not ended.
        if (!isGraphBubbleUp(error)) await breaker.complete(sessionId, id, { error, args: toolCall.args, tool: toolCall.name });
        throw error;
      }
      await breaker.complete(sessionId, id, { ...outcomeOf(result, id), args: toolCall.args, tool: toolCall.name });
      return verdict.advisory ? withAdvisory(result, verdict.advisory) : result;
    },
  });
}
