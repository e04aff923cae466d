/** An error response as the real API sends it: an HTTP status and `{ error: {...} }`. */
export interface OpenAIErrorResponse {
  status: number;
  body: { error: { message: string; type: string; param: string | null; code: string | null } };
}

/** Build an error response in the real API's shape. */
export function openaiError(
  status: number,
  message: string,
  param: string | null = null,
  code: string | null = null,
  type = "invalid_request_error",
): OpenAIErrorResponse {
  return { status, body: { error: { message, type, param, code } } };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first problem with the `tools` array, checked as the real API does. */
function validateTools(tools: unknown): OpenAIErrorResponse | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return openaiError(400, "Invalid type for 'tools': expected an array.", "tools", "invalid_type");
  for (const [i, t] of tools.entries()) {
    const at = `tools[${i}]`;
    if (!isObject(t) || t.type !== "function" || !isObject(t.function)) {
      return openaiError(400, `Missing required parameter: '${at}.function'.`, `${at}.function`, "missing_required_parameter");
    }
    const { name, parameters } = t.function;
    if (typeof name !== "string" || name === "") {
      return openaiError(400, `Missing required parameter: '${at}.function.name'.`, `${at}.function.name`, "missing_required_parameter");
    }
    if (!TOOL_NAME.test(name)) {
      return openaiError(
        400,
        `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `${at}.function.name`,
        "invalid_value",
      );
    }
    if (parameters !== undefined && (!isObject(parameters) || parameters.type !== "object")) {
      const got = isObject(parameters) ? String(parameters.type ?? "None") : typeof parameters;
      return openaiError(
        400,
        `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${got}"'.`,
        `${at}.function.parameters`,
        "invalid_function_parameters",
      );
    }
  }
  return null;
}

function toolNames(tools: unknown): Set<string> | null {
  if (!Array.isArray(tools) || tools.length === 0) return null;
  return new Set(tools.map((t) => String((t as { function: { name: string } }).function.name)));
}

/** A `tool_choice` naming a function must name one of `tools`. */
function validateToolChoice(choice: unknown, names: Set<string> | null): OpenAIErrorResponse | null {
  if (!isObject(choice)) return null;
  const name = isObject(choice.function) ? choice.function.name : undefined;
  if (names === null) {
    return openaiError(400, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice");
  }
  if (typeof name === "string" && !names.has(name)) {
    return openaiError(400, `Invalid value for 'tool_choice': tool '${name}' not found in 'tools' parameter.`, "tool_choice");
  }
  return null;
}

/** Options of `validateChatRequest`. */
export interface ValidateOptions {
  /**
   * Refuse an assistant tool call naming a tool that is not bound (when tools
   * are bound). The real API lets that through in the history; on by default
   * because here it means the graph lost track of its tools. Turn it off to
   * replay a model that hallucinates tool names.
   */
  strictToolNames?: boolean;
}

/**
 * The pairing rules of the real API: every assistant tool call is answered by
 * a `tool` message before the next non-tool message, and every `tool` message
 * answers a call of the assistant message just before its block.
 */
function validateMessages(messages: Json[], names: Set<string> | null): OpenAIErrorResponse | null {
  let pending = new Set<string>();
  let answerable = new Set<string>();
  let owner = -1;
  for (const [i, m] of messages.entries()) {
    if (m.role === "tool") {
      const id = typeof m.tool_call_id === "string" ? m.tool_call_id : "";
      if (!answerable.has(id)) {
        return openaiError(
          400,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      pending.delete(id);
      continue;
    }
    if (pending.size > 0) break;
    answerable = new Set();
    const calls = m.role === "assistant" && Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]) : [];
    for (const [j, call] of calls.entries()) {
      const name = isObject(call.function) ? call.function.name : undefined;
      if (names !== null && (typeof name !== "string" || !names.has(name))) {
        return openaiError(
          400,
          `Invalid value for 'messages[${i}].tool_calls[${j}].function.name': tool '${String(name)}' is not in 'tools'.`,
          `messages.[${i}].tool_calls.[${j}].function.name`,
          "invalid_value",
        );
      }
      answerable.add(String(call.id));
    }
    pending = new Set(answerable);
    owner = i;
  }
  if (pending.size === 0) return null;
  return openaiError(
    400,
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
      `The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
    `messages.[${owner}].role`,
  );
}

/** The first reason the real API would reject this chat completion request, or null. */
export function validateChatRequest(body: unknown, options: ValidateOptions = {}): OpenAIErrorResponse | null {
  if (!isObject(body)) return openaiError(400, "We could not parse the JSON body of your request.");
  if (typeof body.model !== "string" || body.model === "") {
    return openaiError(400, "you must provide a model parameter", null);
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return openaiError(400, "[] is too short - 'messages'", "messages", "empty_array");
  }
  if (!body.messages.every(isObject)) return openaiError(400, "Invalid type for 'messages': expected an array of objects.", "messages", "invalid_type");
  const toolsError = validateTools(body.tools);
  if (toolsError) return toolsError;
  const names = toolNames(body.tools);
  const strict = options.strictToolNames ?? true;
  return validateToolChoice(body.tool_choice, names) ?? validateMessages(body.messages, strict ? names : null);
}
