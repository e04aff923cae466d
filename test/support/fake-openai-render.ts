import { randomBytes } from "node:crypto";

/** A tool call the fake model answers with; `args` objects are sent as a JSON string, strings as they are. */
export interface ScriptedToolCall {
  name: string;
  args?: unknown;
  /** Defaults to a fresh `call_...` id, as the real API generates. */
  id?: string;
}

/** Token counts the fake model reports for one completion. */
export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** One scripted completion: text, tool calls, or both. */
export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to a rough count from the request and reply sizes. */
  usage?: ScriptedUsage;
}

/** The reply resolved into the exact fields the wire formats share. */
export interface RenderedReply {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** A fresh id with the real API's prefix and length, so ids never collide across a run. */
export function openaiId(prefix: "call" | "chatcmpl"): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

/** Resolve a scripted reply (ids, argument strings, usage) once, for either wire format. */
export function resolveReply(reply: ScriptedReply, model: string, requestChars: number): RenderedReply {
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? openaiId("call"),
    name: c.name,
    arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}),
  }));
  const content = reply.content ?? (toolCalls.length > 0 ? null : "");
  const outChars = (content ?? "").length + toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  // Four characters a token is the usual rule of thumb; tests that care script exact usage.
  const usage = reply.usage ?? {
    prompt_tokens: Math.max(1, Math.ceil(requestChars / 4)),
    completion_tokens: Math.max(1, Math.ceil(outChars / 4)),
  };
  return {
    id: openaiId("chatcmpl"),
    created: Math.floor(Date.now() / 1000),
    model,
    content,
    toolCalls,
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

function finishReason(r: RenderedReply): "tool_calls" | "stop" {
  return r.toolCalls.length > 0 ? "tool_calls" : "stop";
}

/** The non-streaming `chat.completion` body, shaped as the real API returns it. */
export function completionBody(r: RenderedReply): object {
  const message: Record<string, unknown> = { role: "assistant", content: r.content, refusal: null };
  if (r.toolCalls.length > 0) {
    message.tool_calls = r.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: r.id,
    object: "chat.completion",
    created: r.created,
    model: r.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(r) }],
    usage: r.usage,
    system_fingerprint: "fp_fake",
  };
}

/** Split a string in about three pieces, so clients must join deltas as they do for the real API. */
function pieces(s: string): string[] {
  if (s.length < 3) return [s];
  const step = Math.ceil(s.length / 3);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += step) out.push(s.slice(i, i + step));
  return out;
}

/** The `chat.completion.chunk` payloads of a streamed reply, in order (without the `[DONE]` marker). */
export function completionChunks(r: RenderedReply, includeUsage: boolean): object[] {
  const base = { id: r.id, object: "chat.completion.chunk", created: r.created, model: r.model, system_fingerprint: "fp_fake" };
  // With include_usage the real API sends `usage: null` on every chunk but the last.
  const usageField = includeUsage ? { usage: null } : {};
  const chunk = (delta: object, finish: string | null = null): object => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...usageField,
  });
  const out: object[] = [chunk({ role: "assistant", content: r.content === null ? null : "", refusal: null })];
  for (const text of r.content ? pieces(r.content) : []) out.push(chunk({ content: text }));
  r.toolCalls.forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const part of pieces(c.arguments)) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  out.push(chunk({}, finishReason(r)));
  if (includeUsage) out.push({ ...base, choices: [], usage: r.usage });
  return out;
}
