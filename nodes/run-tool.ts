import type { StructuredToolInterface } from "@langchain/core/tools";
import type { RunnableConfig } from "@langchain/core/runnables";
import { safeJson, type RawOutcome } from "../breaker/index.js";
import { toolTimeoutMs } from "../tools/define-tool.js";
import type { PendingCall } from "./tool-calls.js";

/** Arguments larger than this (as JSON text) are refused before the tool runs. */
export const MAX_ARGS_CHARS = 32_768;
/** Tool output longer than this is cut before it reaches the model. */
export const MAX_CONTENT_CHARS = 50_000;

/** What running one call produced: the text for the model and the raw outcome for the breaker. */
export interface ToolRun {
  content: string;
  status: "success" | "error";
  outcome: RawOutcome;
}

function failed(message: string): ToolRun {
  return { content: `Error: ${message}`, status: "error", outcome: { error: message } };
}

function toContent(output: unknown): string {
  const text = typeof output === "string" ? output : safeJson(output);
  return text.length <= MAX_CONTENT_CHARS
    ? text
    : `${text.slice(0, MAX_CONTENT_CHARS)}\n[output cut at ${MAX_CONTENT_CHARS} characters]`;
}

// Zod schemas validate here so the model gets every issue in one readable sentence.
function validate(tool: StructuredToolInterface, args: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  const schema = tool.schema as { safeParse?: (v: unknown) => { success: boolean; data?: unknown; error?: { issues: { path: PropertyKey[]; message: string }[] } } };
  if (typeof schema?.safeParse !== "function") return { ok: true, value: args };
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = (parsed.error?.issues ?? []).map((i) => `${i.path.map(String).join(".") || "(arguments)"}: ${i.message}`);
  return { ok: false, message: `Invalid arguments for ${tool.name}: ${issues.join("; ")}.` };
}

async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, what: string): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`${what} did not finish within ${ms} ms.`));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Run one call and never throw: unknown tools, unparseable, oversized or
 * invalid arguments, a throwing tool and a timeout all become error results
 * the model can read, so the run goes on.
 */
export async function runTool(
  tools: ReadonlyMap<string, StructuredToolInterface>,
  call: PendingCall,
  config: RunnableConfig,
): Promise<ToolRun> {
  const tool = tools.get(call.name);
  if (!tool) return failed(`Unknown tool "${call.name}". Available tools: ${[...tools.keys()].join(", ")}.`);
  if (call.parseError) {
    return failed(`The arguments for ${call.name} are not valid JSON (${call.parseError}). Send a JSON object matching the tool's schema.`);
  }
  const size = safeJson(call.args).length;
  if (size > MAX_ARGS_CHARS) {
    return failed(`The arguments for ${call.name} are ${size} characters long; the limit is ${MAX_ARGS_CHARS}.`);
  }
  const valid = validate(tool, call.args);
  if (!valid.ok) return failed(valid.message);
  try {
    const ms = toolTimeoutMs(tool);
    const output = await withTimeout((signal) => tool.invoke(valid.value as never, { ...config, signal }), ms, call.name);
    return { content: toContent(output), status: "success", outcome: { output } };
  } catch (error) {
    const message = error instanceof Error ? error.message : safeJson(error);
    return failed(`${call.name} failed: ${message}`);
  }
}
