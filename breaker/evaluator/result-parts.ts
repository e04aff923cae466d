import type { RawOutcome } from "../outcome.js";
import { asRecord, asString } from "./fields.js";
import { contentOf, outcomeOf } from "./tool-result.js";

/** A tool result read from one content part or call record, with the id of the call it answers when given. */
export interface PartResult {
  callId?: string;
  outcome: RawOutcome;
}

// A failure a format states by where it puts the value (an error part, an `{error}` response): that value is the error.
const failedWith = (value: unknown): RawOutcome => ({ error: value === undefined || value === null || value === "" ? "error" : value });

// The AI SDK's typed output ({type: "text" | "json" | "error-text" | "error-json" | "content", value}).
function typedOutput(output: unknown): RawOutcome | undefined {
  const typed = asRecord(output);
  if (!typed || typeof typed.type !== "string" || !("value" in typed) || Object.keys(typed).length !== 2) return undefined;
  const value = typed.type === "content" ? contentOf(typed.value) : typed.value;
  return typed.type.startsWith("error") ? failedWith(value) : { output: value };
}

// Gemini's functionResponse.response: {output} or {error} by convention, else the response itself.
function geminiOutcome(response: unknown): RawOutcome {
  const fields = asRecord(response);
  if (fields && "error" in fields && !("output" in fields)) return failedWith(fields.error);
  return { output: fields && "output" in fields ? fields.output : response };
}

/**
 * The result a part carries: Anthropic's tool_result block, the AI SDK's
 * tool-result part, Gemini's functionResponse part. Undefined for any other part.
 */
export function resultOfPart(raw: unknown): PartResult | undefined {
  const part = asRecord(raw);
  if (!part) return undefined;
  if (part.type === "tool_result") {
    return { callId: asString(part.tool_use_id), outcome: outcomeOf(contentOf(part.content), part.is_error === true ? true : undefined) };
  }
  if (part.type === "tool-result") {
    const output = "output" in part ? part.output : part.result;
    return { callId: asString(part.toolCallId), outcome: typedOutput(output) ?? outcomeOf(output, part.isError === true ? true : undefined) };
  }
  const response = asRecord(part.functionResponse);
  if (response) return { callId: asString(response.id), outcome: geminiOutcome(response.response) };
  return undefined;
}

/** The results of a message whose every part is a result (a user or tool message answering calls), or undefined. */
export function resultsOfParts(parts: unknown): PartResult[] | undefined {
  if (!Array.isArray(parts) || parts.length === 0) return undefined;
  const results = parts.map(resultOfPart);
  return results.every((r) => r !== undefined) ? (results as PartResult[]) : undefined;
}

/**
 * The result a recorded call carries inline, or undefined while it has none:
 * the AI SDK's tool invocation (`state: "result"`, `result`) and tool UI part
 * (`state: "output-available" | "output-error"`), gemini-cli's recorded call
 * (`result`: functionResponse parts, `status: "error"` on failure).
 */
export function inlineResultOf(raw: unknown): RawOutcome | undefined {
  const call = asRecord(raw);
  if (!call) return undefined;
  if (call.state === "output-error") return failedWith(call.errorText);
  if (call.state === "output-available") return typedOutput(call.output) ?? { output: call.output };
  if (call.state === "result" && "result" in call) return { output: call.result };
  if (!("result" in call) || call.state !== undefined) return undefined;
  const parts = resultsOfParts(call.result);
  const output = parts?.length === 1 ? parts[0]!.outcome : { output: call.result };
  return call.status === "error" && output.error === undefined ? outcomeOf(call.resultDisplay ?? output.output, true) : output;
}
