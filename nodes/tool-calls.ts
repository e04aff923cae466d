import { randomUUID } from "node:crypto";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { isContinuation, turnKey, type Verdict } from "../breaker/index.js";

/** A tool call the model asked for; `parseError` is set when its arguments were not valid JSON. */
export interface PendingCall {
  id: string;
  name: string;
  args: unknown;
  parseError?: string;
}

/** The last message when it is an AIMessage, the one whose tool calls are pending. */
export function lastAIMessage(messages: readonly BaseMessage[]): AIMessage | undefined {
  const last = messages.at(-1);
  return last && AIMessage.isInstance(last) ? last : undefined;
}

/** A fresh tool call id in OpenAI's style. */
export function newToolCallId(): string {
  return `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/**
 * Where a call whose arguments were not valid JSON keeps them. OpenAI-style
 * APIs are sent only `tool_calls`, so a malformed call must live there too, or
 * its error reply would answer a call the API never saw.
 */
export const UNPARSED_ARGS_KEY = "__unparsed_arguments";

/**
 * A fresh model message, normalized: every call gets an id, unique in the
 * message (each needs its own reply). Ids are the model's own otherwise, even
 * when it reuses one from an earlier turn: the reply answers the id the
 * provider gave, and the breaker counts the call under `breakerCallId`.
 * Malformed calls join `tool_calls` with their raw arguments under
 * UNPARSED_ARGS_KEY. The message gets an id unique in the thread (`thread`):
 * the messages reducer would otherwise replace an earlier message that
 * carries the same id, and the breaker ids build on it. A changed message (or
 * a streamed chunk) is a new AIMessage, since a checkpoint stores the
 * constructor's fields, not later assignments; a plain message that needs
 * nothing is returned as it is. `avoid` lists call ids to steer clear of
 * besides the message's own: a host that knows calls by their raw ids (the
 * createAgent middleware passes `toolCallIds(thread)`) keeps them unique in
 * the thread that way.
 */
export function normalizeToolCalls(message: AIMessage, thread: readonly BaseMessage[] = [], avoid: Iterable<string> = []): AIMessage {
  const seen = new Set<string>(avoid);
  const taken = !message.id || thread.some((m) => m.id === message.id);
  // Streaming models hand back a chunk; the thread keeps a plain AIMessage.
  const plain = !AIMessageChunk.isInstance(message);
  if (plain && !taken && !message.invalid_tool_calls?.length && callIdsAreUnique(message, seen)) return message;
  const unique = (id: string | undefined): string => {
    let next = id || newToolCallId();
    for (let n = 2; seen.has(next); n++) next = `${id}_${n}`;
    seen.add(next);
    return next;
  };
  const valid = (message.tool_calls ?? []).map((c) => ({ ...c, id: unique(c.id) }));
  const invalid = (message.invalid_tool_calls ?? []).map((c) => ({
    type: "tool_call" as const,
    id: unique(c.id),
    name: c.name ?? "",
    args: { [UNPARSED_ARGS_KEY]: c.args ?? "", error: c.error ?? "arguments are not valid JSON" },
  }));
  return new AIMessage({
    id: taken ? randomUUID() : message.id,
    content: message.content,
    ...(message.name === undefined ? {} : { name: message.name }),
    tool_calls: [...valid, ...invalid],
    invalid_tool_calls: [],
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
    response_metadata: message.response_metadata,
    additional_kwargs: message.additional_kwargs,
  });
}

/** True when every call has an id, none repeated and none in `taken`. */
function callIdsAreUnique(message: AIMessage, taken: ReadonlySet<string>): boolean {
  const calls = message.tool_calls ?? [];
  if (calls.length === 1 && taken.size === 0) return Boolean(calls[0]!.id);
  const ids = new Set<string>();
  for (const call of calls) {
    if (!call.id || ids.has(call.id) || taken.has(call.id)) return false;
    ids.add(call.id);
  }
  return true;
}

/** Ids of every tool call already asked for in a thread. */
export function toolCallIds(messages: readonly BaseMessage[]): string[] {
  return messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id ?? "") : []));
}

/**
 * The id the breaker knows a call by: the model's id, namespaced by the
 * message and the thread (or session) it came in. Providers that number
 * calls call_0, call_1 on every turn, and threads that share a session, would
 * otherwise collide, and a collision is a call the breaker never counts.
 */
export function breakerCallId(scope: string, messageId: string, callId: string): string {
  return `${scope}/${messageId}/${callId}`;
}

// True when `callId` ends with `/${messageId}/${id}` (as breakerCallId builds it), without building that text: the router and the tools node ask on every step.
function namesCall(callId: string, messageId: string, id: string): boolean {
  const idAt = callId.length - id.length;
  const messageAt = idAt - 1 - messageId.length;
  return (
    messageAt >= 1 &&
    callId.endsWith(id) &&
    callId.charCodeAt(idAt - 1) === SLASH &&
    callId.startsWith(messageId, messageAt) &&
    callId.charCodeAt(messageAt - 1) === SLASH
  );
}
const SLASH = 47;

/** The verdicts in `verdicts` when they judge exactly the calls of `message`, in order; else undefined (not checked yet). */
export function verdictsFor(message: AIMessage, verdicts: readonly Verdict[]): Verdict[] | undefined {
  const calls = message.tool_calls ?? [];
  const messageId = message.id;
  if (calls.length === 0 || verdicts.length !== calls.length || !messageId) return undefined;
  for (let i = 0; i < calls.length; i++) if (!namesCall(verdicts[i]!.callId, messageId, calls[i]!.id ?? "")) return undefined;
  return verdicts as Verdict[];
}

/** Every call the message asks for; `parseError` marks those whose arguments were not JSON. */
export function pendingCalls(message: AIMessage): PendingCall[] {
  return (message.tool_calls ?? []).map((c) => {
    const raw = c.args as Record<string, unknown> | undefined;
    if (raw && typeof raw === "object" && UNPARSED_ARGS_KEY in raw) {
      return { id: c.id ?? "", name: c.name, args: raw[UNPARSED_ARGS_KEY], parseError: String(raw.error) };
    }
    return { id: c.id ?? "", name: c.name, args: c.args };
  });
}

// A human message's words, or undefined when it brings more than words (an image, a file): that is always a new request.
// `message.text` would convert every content block to the v1 format first, which costs more than the whole check.
function wordsOf(message: BaseMessage): string | undefined {
  const content = message.content;
  if (typeof content === "string") return content;
  let text = "";
  for (const block of content) {
    if (block.type !== "text") return undefined;
    if (typeof block.text === "string") text += block.text;
  }
  return text;
}

/** Marks the answer `circuit_fallback` gives in the model's place (in `response_metadata`). */
export const BREAKER_ANSWER = "circuitBreakerAnswer";

// The model's own answer: no calls, and not the breaker's stand-in after a trip.
function isModelAnswer(message: BaseMessage): boolean {
  if (message.getType() !== "ai" || (message as AIMessage).tool_calls?.length) return false;
  return !(message as AIMessage).response_metadata?.[BREAKER_ANSWER];
}

/**
 * The run a message list is in: the id of its latest user message that asked
 * for something new, so each real user turn is a run. A "continue" nudge, or
 * the same message sent again before the model answered (or after the
 * breaker stopped it), keeps the run it follows, as offline.
 */
export function currentRunId(messages: readonly BaseMessage[]): string {
  const said = new Set<string>();
  let run: string | undefined;
  let turns = 0;
  // Only later messages compare against what was said: the last one's words need no key.
  let last = messages.length - 1;
  while (last >= 0 && messages[last]!.getType() !== "human") last--;
  for (let i = 0; i <= last; i++) {
    const message = messages[i]!;
    // The model answered: the same message sent after its answer asks again, as offline.
    if (isModelAnswer(message)) said.clear();
    if (message.getType() !== "human") continue;
    const text = wordsOf(message);
    if (run === undefined || text === undefined || !isContinuation(text, said)) run = message.id ?? `run-${turns}`;
    if (text !== undefined && i < last) said.add(turnKey(text));
    turns++;
  }
  return run ?? "run-0";
}
