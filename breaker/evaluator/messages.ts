import type { ReplayCall, ReplayEvent } from "./trajectory.js";
import { asRecord, asString, parseArgs, timeOf } from "./fields.js";
import { contentOf, outcomeOf } from "./tool-result.js";
import { inlineResultOf, resultsOfParts } from "./result-parts.js";
import { addUsage, usageOf } from "../usage.js";
import type { TokenUsage } from "../types.js";

type Role = "user" | "assistant" | "tool" | "system";

const ROLES: Record<string, Role> = {
  user: "user",
  human: "user",
  humanmessage: "user",
  assistant: "assistant",
  ai: "assistant",
  model: "assistant",
  gemini: "assistant",
  aimessage: "assistant",
  tool: "tool",
  function: "tool",
  toolmessage: "tool",
  functionmessage: "tool",
  system: "system",
  developer: "system",
  systemmessage: "system",
};

/** A message's role and its own fields, whatever the serialization. */
interface Unwrapped {
  role?: Role;
  fields: Record<string, unknown>;
}

function roleFrom(name: unknown): Role | undefined {
  return typeof name === "string" ? ROLES[name.toLowerCase().replace(/chunk$/, "")] : undefined;
}

// A session log's line around the message it records: Claude Code's {type, message, timestamp}, Codex's
// {type: "response_item", payload, timestamp}. The line's time is the message's when the message has none.
function envelopeOf(record: Record<string, unknown>): Record<string, unknown> {
  if ("role" in record) return record;
  const inner = asRecord(record.payload) ?? asRecord(record.message);
  if (!inner || !("role" in inner || "type" in inner)) return record;
  const at = record.timestamp ?? record.created_at;
  return at !== undefined && timeOf(inner) === undefined ? { ...inner, timestamp: at } : inner;
}

// LangChain: {lc:1, type:"constructor", id:[..., "AIMessage"], kwargs}; stored: {type:"ai", data}; plain: {role} / {type}.
function unwrap(message: Record<string, unknown>): Unwrapped {
  const kwargs = asRecord(message.kwargs);
  if (message.type === "constructor" && Array.isArray(message.id) && kwargs) {
    const cls = message.id.at(-1);
    return { role: roleFrom(cls) ?? roleFrom(kwargs.role), fields: kwargs };
  }
  const data = asRecord(message.data);
  if (data && typeof message.type === "string" && !("role" in message)) {
    return { role: roleFrom(message.type) ?? roleFrom(data.role), fields: data };
  }
  return { role: roleFrom(message.role) ?? roleFrom(message.type), fields: message };
}

function callOf(raw: unknown): ReplayCall | undefined {
  const call = asRecord(raw);
  if (!call) return undefined;
  const fn = asRecord(call.function);
  // OpenAI's {function: {name, arguments}}, Gemini's {functionCall: {name, args}}, the AI SDK's {toolName, input}.
  const inner = fn ?? asRecord(call.functionCall) ?? asRecord(call.function_call);
  const name = asString(inner?.name) ?? asString(call.name) ?? asString(call.toolName) ?? uiPartTool(call);
  if (!name) return undefined;
  const args = parseArgs(inner ? (inner.arguments ?? inner.args) : (call.args ?? call.arguments ?? call.input));
  // A Responses item's `call_id` is what its output names; its `id` is the item's own.
  const id = asString(call.call_id) ?? asString(call.id) ?? asString(inner?.id) ?? asString(call.toolCallId) ?? asString(call.tool_call_id);
  return id ? { id, name, args } : { name, args };
}

// The AI SDK's UI message part for a tool: {type: "tool-<name>", toolCallId, state, input, output | errorText}.
// Model-message parts (tool-call, tool-result) have no state.
const uiPartTool = (part: Record<string, unknown>) =>
  typeof part.type === "string" && part.type.startsWith("tool-") && part.toolCallId !== undefined && typeof part.state === "string"
    ? part.type.slice(5) || undefined
    : undefined;

// Parts of a model message that are calls: Anthropic's tool_use, the AI SDK's tool-call and tool UI parts, Gemini's functionCall.
const isCallPart = (part: unknown) => {
  const p = asRecord(part);
  return !!p && (p.type === "tool_use" || p.type === "tool-call" || p.type === "dynamic-tool" || uiPartTool(p) !== undefined || asRecord(p.functionCall) !== undefined);
};

// Tool calls of a model message, as recorded: LangChain's parsed and invalid calls, else OpenAI's, legacy
// function_call, or call parts.
function recordedCalls(fields: Record<string, unknown>): unknown[] {
  const lists: unknown[][] = [];
  if (Array.isArray(fields.tool_calls) && fields.tool_calls.length > 0) {
    lists.push(fields.tool_calls);
    if (Array.isArray(fields.invalid_tool_calls)) lists.push(fields.invalid_tool_calls);
  } else if (Array.isArray(fields.invalid_tool_calls) && fields.invalid_tool_calls.length > 0) {
    lists.push(fields.invalid_tool_calls);
  } else {
    const extra = asRecord(fields.additional_kwargs);
    if (Array.isArray(extra?.tool_calls)) lists.push(extra.tool_calls);
    else if (fields.function_call) lists.push([{ function: fields.function_call }]);
    else if (extra?.function_call) lists.push([{ function: extra.function_call }]);
    else if (Array.isArray(fields.content)) lists.push(fields.content.filter(isCallPart));
    // Gemini's parts, the AI SDK's UI parts and its older toolInvocations, gemini-cli's recorded toolCalls.
    if (Array.isArray(fields.parts)) lists.push(fields.parts.filter(isCallPart));
    if (Array.isArray(fields.toolInvocations)) lists.push(fields.toolInvocations);
    if (Array.isArray(fields.toolCalls)) lists.push(fields.toolCalls);
  }
  return lists.flat();
}

// Tool results sent as the parts of a message (Anthropic's tool_result blocks in a user message, the AI SDK's
// tool-result parts in a tool message, Gemini's functionResponse parts).
function resultEvents(fields: Record<string, unknown>, when: { at?: number }): ReplayEvent[] | undefined {
  const results = resultsOfParts(fields.content) ?? resultsOfParts(fields.parts);
  return results?.map(({ callId, outcome }) => ({ type: "result" as const, ...(callId ? { callId } : {}), outcome, ...when }));
}

function textOf(content: unknown): { text?: string } {
  const text = contentOf(content);
  return typeof text === "string" ? { text } : {};
}

// A model turn with its calls, followed by the results recorded inline on them (gemini-cli, the AI SDK's UI messages).
function modelEvents(fields: Record<string, unknown>, usage: TokenUsage | undefined, when: { at?: number }): ReplayEvent[] {
  const recorded = recordedCalls(fields);
  const calls: ReplayCall[] = [];
  const results: ReplayEvent[] = [];
  for (const raw of recorded) {
    const call = callOf(raw);
    if (!call) continue;
    calls.push(call);
    const outcome = inlineResultOf(raw);
    if (outcome) results.push({ type: "result", ...(call.id ? { callId: call.id } : {}), outcome, ...when });
  }
  return [{ type: "model", calls, ...(usage ? { usage } : {}), ...when }, ...results];
}

// OpenAI Responses API items that are calls and their outputs (function tools and custom tools).
const CALL_ITEMS = new Set(["function_call", "custom_tool_call"]);
const OUTPUT_ITEMS = new Set(["function_call_output", "custom_tool_call_output"]);

// Model turns recorded in pieces, by the response they belong to: Responses items (one item per call, so
// consecutive ones are one response) and Claude Code's session lines (one line per content block, with the
// message's id). Consecutive pieces of one response are one model turn.
const responseOf = new WeakMap<ReplayEvent, string>();

function itemEvents(record: Record<string, unknown>, when: { at?: number }): ReplayEvent[] | undefined {
  if (CALL_ITEMS.has(record.type as string)) {
    const call = callOf(record);
    if (!call) return [];
    const event: ReplayEvent = { type: "model", calls: [call], ...when };
    responseOf.set(event, "items");
    return [event];
  }
  if (OUTPUT_ITEMS.has(record.type as string)) {
    const callId = asString(record.call_id);
    const flagged = record.status === "failed" || record.status === "incomplete" ? true : undefined;
    return [{ type: "result", ...(callId ? { callId } : {}), outcome: outcomeOf(contentOf(record.output), flagged), ...when }];
  }
  return undefined;
}

/** Replay events of a list of messages, the pieces of one model response joined into one turn. */
export function eventsOfMessages(messages: readonly unknown[]): ReplayEvent[] {
  const events: ReplayEvent[] = [];
  for (const event of messages.flatMap(eventsOfMessage)) {
    const last = events.at(-1);
    const response = responseOf.get(event);
    if (last?.type === "model" && event.type === "model" && response !== undefined && responseOf.get(last) === response) {
      const usage = addUsage(last.usage, event.usage);
      events[events.length - 1] = { ...last, calls: [...last.calls, ...event.calls], ...(usage ? { usage } : {}) };
      responseOf.set(events.at(-1)!, response);
    } else events.push(event);
  }
  return events;
}

/**
 * Turn one chat message into replay events: a user turn, a model turn with
 * its calls and usage, or a tool result. System messages and anything
 * unrecognised yield nothing.
 */
export function eventsOfMessage(message: unknown): ReplayEvent[] {
  const outer = asRecord(message);
  if (!outer) return [];
  const record = envelopeOf(outer);
  const { role, fields } = unwrap(record);
  const at = timeOf(fields) ?? timeOf(record);
  const when = at === undefined ? {} : { at };
  const items = itemEvents(record, when);
  if (items) return items;
  if (role === "user") return resultEvents(fields, when) ?? [{ type: "user", ...when, ...textOf(fields.content ?? fields.parts) }];
  if (role === "assistant") {
    const events = modelEvents(fields, usageOf(fields) ?? usageOf(record), when);
    // A Responses message item, or a Claude Code line naming its message: a piece of one response.
    const response = record.type === "message" ? "items" : record !== outer ? asString(record.id) : undefined;
    if (response !== undefined) responseOf.set(events[0]!, response);
    return events;
  }
  if (role === "tool") {
    const parts = resultEvents(fields, when);
    if (parts) return parts;
    const flagged = fields.status === "error" || fields.is_error === true || fields.isError === true ? true : fields.error;
    return [
      {
        type: "result",
        callId: asString(fields.tool_call_id) ?? asString(fields.tool_use_id),
        outcome: outcomeOf(contentOf(fields.content), flagged),
        ...when,
      },
    ];
  }
  return [];
}
