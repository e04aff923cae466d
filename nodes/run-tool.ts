import { ToolMessage, type MessageContent } from "@langchain/core/messages";
import { ToolInputParsingException, type StructuredToolInterface } from "@langchain/core/tools";
import { Command, isCommand, isGraphBubbleUp, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { safeJson, type RawOutcome, type Verdict } from "../breaker/index.js";
import { toolTimeoutMs } from "../tools/define-tool.js";
import { CallDeadlines, type Expiring } from "./call-deadlines.js";
import type { Redactor } from "./redact.js";
import type { PendingCall } from "./tool-calls.js";

/** Arguments larger than this (as JSON text) are refused before the tool runs. */
export const MAX_ARGS_CHARS = 32_768;
/** Tool output longer than this is cut before it reaches the model. */
export const MAX_CONTENT_CHARS = 50_000;
/** Tag in front of the advisory a HALF_OPEN circuit adds to a tool result. */
export const ADVISORY_TAG = "[circuit_breaker: HALF_OPEN]";

/** What a call produced: its reply (a ToolMessage, or the Command the tool returned) and the raw outcome for the breaker. */
export interface ToolRun {
  reply: ToolMessage | Command;
  outcome: RawOutcome;
}

/** What running a call needs besides the call. */
export interface ToolRunContext {
  tools: ReadonlyMap<string, StructuredToolInterface>;
  redact: Redactor;
  /** The graph state, handed to the tool as LangGraph's ToolNode does. */
  state: unknown;
  /** The node's config: its signal is the run's, cancelled with the run. */
  config: LangGraphRunnableConfig;
  /** The batch's one listener on the run's signal (see `RunCancellation`). */
  cancellation: RunCancellation;
}

// Thrown into the tool's signal when its time is up, so a timeout is told apart from a cancelled run.
class ToolTimeout extends Error {
  override readonly name = "ToolTimeout";
}

// JSON.stringify first: it is the fast path for the plain data tools return; safeJson survives BigInt, cycles and throwing getters.
function jsonText(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // Falls through to the tolerant serializer.
  }
  return safeJson(value);
}

function textContent(output: unknown): string {
  const text = typeof output === "string" ? output : jsonText(output);
  return text.length <= MAX_CONTENT_CHARS ? text : `${text.slice(0, MAX_CONTENT_CHARS)}\n[output cut at ${MAX_CONTENT_CHARS} characters]`;
}

function redactContent(content: MessageContent, redact: Redactor): MessageContent {
  if (typeof content === "string") return redact.text(textContent(content));
  return content.map((block) => (block.type === "text" && typeof block.text === "string" ? { ...block, text: redact.text(block.text) } : block));
}

/** Tool output with the HALF_OPEN advisory appended: to text, as a paragraph; to content blocks, as one more text block. */
export function withAdvisoryText(content: MessageContent, advisory: string): MessageContent {
  const note = `${ADVISORY_TAG} ${advisory}`;
  return typeof content === "string" ? `${content}\n\n${note}` : [...content, { type: "text", text: note }];
}

function reply(call: PendingCall, verdict: Verdict | undefined, content: MessageContent, status: "success" | "error", artifact?: unknown): ToolMessage {
  const advised = verdict?.advisory ? withAdvisoryText(content, verdict.advisory) : content;
  return new ToolMessage({
    tool_call_id: call.id,
    name: call.name,
    status,
    content: advised,
    artifact: { ...(artifact === undefined ? {} : { tool: artifact }), circuit: verdict },
  });
}

/**
 * A failed call: the model reads `Error: <context><message>`; the breaker reads the message alone, as a recorded
 * run gives it the tool's own error offline, so both judge the same text (a cause line, a transient word).
 */
function failed(call: PendingCall, verdict: Verdict | undefined, message: string, redact: Redactor, context = ""): ToolRun {
  const text = redact.text(message);
  return { reply: reply(call, verdict, `Error: ${redact.text(context)}${text}`, "error"), outcome: { error: text } };
}

// Every issue of a zod schema in one readable sentence, for the model to act on.
function validate(tool: StructuredToolInterface, args: unknown): { ok: true } | { ok: false; message: string } {
  const schema = tool.schema as { safeParse?: (v: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } };
  if (typeof schema?.safeParse !== "function") return { ok: true };
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true };
  const issues = (parsed.error?.issues ?? []).map((i) => `${i.path.map(String).join(".") || "(arguments)"}: ${i.message}`);
  return { ok: false, message: `Invalid arguments for ${tool.name}: ${issues.join("; ")}.` };
}

const ONCE = { once: true } as const;

// Every call's timeout, on one timer.
const deadlines = new CallDeadlines();

/**
 * One listener on the run's signal for a whole batch of parallel calls,
 * handing a cancellation on to the calls still running: a listener per call
 * would pass Node's limit of ten per signal (and its warning) at the eleventh
 * parallel call. It listens while it has calls, as an EventListener object
 * (handleEvent), so a call allocates no closures for it.
 */
export class RunCancellation {
  private readonly calls = new Set<CallSignal>();

  constructor(private readonly run: AbortSignal | undefined) {}

  /** Follow the run for `call`; a run already cancelled stops it at once. */
  add(call: CallSignal): void {
    if (!this.run) return;
    if (this.run.aborted) return call.abort(this.run.reason);
    if (this.calls.size === 0) this.run.addEventListener("abort", this, ONCE);
    this.calls.add(call);
  }

  delete(call: CallSignal): void {
    if (!this.calls.delete(call) || this.calls.size > 0) return;
    this.run?.removeEventListener("abort", this);
  }

  /** The run was cancelled. */
  handleEvent(): void {
    for (const call of this.calls) call.abort(this.run?.reason);
  }
}

/**
 * The signal a call runs under: aborted when the run is cancelled (through
 * the batch's `RunCancellation`) or when the call's time is up, whichever
 * comes first. Combined by hand rather than with AbortSignal.any, whose weak
 * references cost more than the rest of the call and which, on Node 20,
 * keeps dependents of a long-lived run signal alive; `release` detaches both
 * sources.
 */
class CallSignal implements Expiring {
  private readonly controller = new AbortController();
  readonly deadline: number;
  private reject?: (reason: unknown) => void;

  constructor(
    private readonly cancellation: RunCancellation,
    readonly ms: number,
    readonly what: string,
  ) {
    this.deadline = performance.now() + ms;
    deadlines.add(this);
    cancellation.add(this);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * `work`'s result, or a rejection as soon as the call is stopped: one promise, where a race with a
   * promise of the stop made three more on every call.
   */
  within<T>(work: PromiseLike<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      Promise.resolve(work).then(resolve, reject);
      const { signal } = this.controller;
      if (signal.aborted) reject(signal.reason);
      else this.reject = reject;
    });
  }

  /** The call's time is up. */
  expire(): void {
    // The error is made only when the time is up: capturing a stack on every call would cost more than the call.
    this.abort(new ToolTimeout(`${this.what} did not finish within ${this.ms} ms.`));
  }

  abort(reason: unknown): void {
    this.controller.abort(reason);
    this.reject?.(reason);
  }

  release(): void {
    deadlines.delete(this);
    this.cancellation.delete(this);
  }
}

/**
 * Invoke the tool under the call's signal, handing it its runtime as
 * LangGraph's ToolNode does (state, toolCallId, context, writer). Rejects when
 * the run is cancelled or the time is up, even for a tool that ignores its signal.
 */
async function invokeWithin(tool: StructuredToolInterface, args: unknown, call: PendingCall, ctx: ToolRunContext): Promise<unknown> {
  const { config } = ctx;
  const stop = new CallSignal(ctx.cancellation, toolTimeoutMs(tool), call.name);
  const runtime = {
    ...config,
    signal: stop.signal,
    state: ctx.state,
    toolCallId: call.id,
    config,
    context: config.context,
    store: config.store,
    writer: config.writer,
  };
  try {
    return await stop.within(tool.invoke(args as never, runtime));
  } finally {
    stop.release();
  }
}

/** The ToolMessage a Command carries for `callId`, in either form of its update (an object, or [key, value] pairs). */
export function commandReply(command: Command, callId: string): ToolMessage | undefined {
  const update = command.update;
  const tuples: [string, unknown][] = Array.isArray(update) ? (update as [string, unknown][]) : Object.entries(update ?? {});
  for (const [key, value] of tuples) {
    if (key !== "messages") continue;
    const found = (Array.isArray(value) ? value : [value]).find((m) => ToolMessage.isInstance(m) && m.tool_call_id === callId);
    if (found) return found as ToolMessage;
  }
  return undefined;
}

/**
 * A Command the tool returned, applied as LangGraph's ToolNode applies it,
 * with the call answered: the tool's own reply (the advisory added in
 * HALF_OPEN), or one saying the tool updated the state when it sent none, so
 * the thread never keeps an unanswered call.
 */
function commandRun(command: Command, call: PendingCall, verdict: Verdict | undefined, redact: Redactor): ToolRun {
  const own = commandReply(command, call.id);
  const answer = reply(call, verdict, own ? redactContent(own.content, redact) : "Done: the tool updated the conversation state.", own?.status ?? "success", own?.artifact);
  const swap = (m: unknown) => (m === own ? answer : m);
  const update = command.update;
  let next: Command["update"];
  if (Array.isArray(update)) {
    next = (update as [string, unknown][]).map(([k, v]) => [k, k === "messages" ? (Array.isArray(v) ? v.map(swap) : swap(v)) : v]) as Command["update"];
    if (!own) (next as [string, unknown][]).push(["messages", [answer]]);
  } else {
    const fields = { ...(update as Record<string, unknown> | undefined) };
    const messages = fields.messages === undefined ? [] : Array.isArray(fields.messages) ? fields.messages : [fields.messages];
    fields.messages = own ? messages.map(swap) : [...messages, answer];
    next = fields;
  }
  const applied = new Command({ update: next, ...(command.goto === undefined ? {} : { goto: command.goto }), ...(command.graph === undefined ? {} : { graph: command.graph }) });
  return { reply: applied, outcome: { output: own ? own.content : command.update } };
}

/**
 * Run one approved call. Unknown tools, unparseable, oversized or invalid
 * arguments, a throwing tool and a timeout all become error replies the model
 * can read, so the run goes on. What must reach LangGraph does: an
 * `interrupt()` (and every other bubble-up), and the run's cancellation. A
 * returned Command is applied; every text that reaches the state is redacted.
 */
export async function runTool(call: PendingCall, verdict: Verdict | undefined, ctx: ToolRunContext): Promise<ToolRun> {
  const { tools, redact } = ctx;
  const tool = tools.get(call.name);
  if (!tool) return failed(call, verdict, `Unknown tool "${call.name}". Available tools: ${[...tools.keys()].join(", ")}.`, redact);
  if (call.parseError) {
    return failed(call, verdict, `The arguments for ${call.name} are not valid JSON (${call.parseError}). Send a JSON object matching the tool's schema.`, redact);
  }
  const size = jsonText(call.args).length;
  if (size > MAX_ARGS_CHARS) {
    return failed(call, verdict, `The arguments for ${call.name} are ${size} characters long; the limit is ${MAX_ARGS_CHARS}.`, redact);
  }
  let output: unknown;
  try {
    // The tool validates its arguments itself; only a refusal pays for the readable sentence below.
    output = await invokeWithin(tool, call.args, call, ctx);
  } catch (error) {
    if (isGraphBubbleUp(error)) throw error;
    if (ctx.config.signal?.aborted) throw ctx.config.signal.reason ?? error;
    if (error instanceof ToolTimeout) return failed(call, verdict, error.message, redact);
    if (error instanceof ToolInputParsingException) {
      const valid = validate(tool, call.args);
      return failed(call, verdict, valid.ok ? `Invalid arguments for ${call.name}: ${error.message}` : valid.message, redact);
    }
    const message = error instanceof Error ? error.message : safeJson(error);
    return failed(call, verdict, message, redact, `${call.name} failed: `);
  }
  if (isCommand(output)) return commandRun(output, call, verdict, redact);
  if (ToolMessage.isInstance(output)) {
    const status = output.status === "error" ? "error" : "success";
    return { reply: reply(call, verdict, redactContent(output.content, redact), status, output.artifact), outcome: status === "error" ? { error: output.content } : { output: output.content } };
  }
  return { reply: reply(call, verdict, redact.text(textContent(output)), "success"), outcome: { output } };
}
