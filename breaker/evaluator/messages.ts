import type { ReplayCall, ReplayEvent } from "./trajectory.js";
import { asRecord, asString, parseArgs, timeOf } from "./fields.js";
import { contentOf, outcomeOf } from "./tool-result.js";
import { usageOf } from "../usage.js";

type Role = "user" | "assistant" | "tool" | "system";

const ROLES: Record<string, Role> = {
  user: "user",
  human: "user",
  humanmessage: "user",
  assistant: "assistant",
  ai: "assistant",
  model: "assistant",
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
  const name = asString(fn?.name) ?? asString(call.name);
  if (!name) return undefined;
  const args = fn ? parseArgs(fn.arguments) : parseArgs(call.args ?? call.arguments ?? call.input);
  const id = asString(call.id) ?? asString(call.tool_call_id);
  return id ? { id, name, args } : { name, args };
}

// Tool calls of a model message: LangChain's parsed and invalid calls, else OpenAI's, legacy function_call, or tool_use blocks.
function callsOf(fields: Record<string, unknown>): ReplayCall[] {
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
    else if (Array.isArray(fields.content)) {
      lists.push(fields.content.filter((b) => asRecord(b)?.type === "tool_use"));
    }
  }
  return lists.flat().flatMap((raw) => callOf(raw) ?? []);
}

// Tool results carried inside a user message as content blocks (tool_result), as some APIs send them.
function resultBlocks(fields: Record<string, unknown>): ReplayEvent[] | undefined {
  if (!Array.isArray(fields.content) || fields.content.length === 0) return undefined;
  const blocks = fields.content.map(asRecord);
  if (!blocks.every((b) => b?.type === "tool_result")) return undefined;
  return blocks.map((b) => ({
    type: "result" as const,
    callId: asString(b!.tool_use_id),
    outcome: outcomeOf(contentOf(b!.content), b!.is_error === true ? true : undefined),
  }));
}

function textOf(content: unknown): { text?: string } {
  const text = contentOf(content);
  return typeof text === "string" ? { text } : {};
}

/**
 * Turn one chat message into replay events: a user turn, a model turn with
 * its calls and usage, or a tool result. System messages and anything
 * unrecognised yield nothing.
 */
export function eventsOfMessage(message: unknown): ReplayEvent[] {
  const record = asRecord(message);
  if (!record) return [];
  const { role, fields } = unwrap(record);
  const at = timeOf(fields) ?? timeOf(record);
  const when = at === undefined ? {} : { at };
  if (role === "user") return resultBlocks(fields) ?? [{ type: "user", ...when, ...textOf(fields.content) }];
  if (role === "assistant") {
    const usage = usageOf(fields) ?? usageOf(record);
    return [{ type: "model", calls: callsOf(fields), ...(usage ? { usage } : {}), ...when }];
  }
  if (role === "tool") {
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
