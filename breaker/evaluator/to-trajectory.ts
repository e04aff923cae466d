import { BreakerError } from "../errors.js";
import type { ToolNature } from "../types.js";
import { asRecord, asString, parseArgs, timeOf } from "./fields.js";
import { eventsOfMessages } from "./messages.js";
import { outcomeOf } from "./tool-result.js";
import type { ReplayEvent, ReplayTrajectory } from "./trajectory.js";
import { usageOf } from "../usage.js";

const NATURES = new Set<ToolNature>(["read_only", "side_effecting", "pagination", "polling"]);

function invalid(message: string): never {
  throw new BreakerError("INVALID_TRAJECTORY", message);
}

function naturesOf(value: unknown): Record<string, ToolNature> {
  const out: Record<string, ToolNature> = {};
  for (const [tool, nature] of Object.entries(asRecord(value) ?? {})) {
    if (NATURES.has(nature as ToolNature)) out[tool] = nature as ToolNature;
  }
  return out;
}

// Entries with no call to check: the harness's instructions, a result whose call was not logged.
const NARRATION_ROLES = new Set(["system", "developer", "tool"]);

const isCallEntry = (entry: Record<string, unknown> | undefined) => !!entry && (asString(entry.name) ?? asString(entry.tool)) !== undefined;

// True when no call follows entry `index` before the next user entry.
function endsRun(entries: readonly unknown[], index: number): boolean {
  for (const raw of entries.slice(index + 1)) {
    const entry = asRecord(raw);
    if (isCallEntry(entry)) return false;
    if (entry?.role === "user" || entry?.type === "user") return true;
  }
  return true;
}

// Where a call entry keeps its result: `output`, or the names other logs give it (a ReAct log's `observation`).
const OUTPUT_KEYS = ["output", "result", "observation", "response"];
const FAILED_STATUSES = new Set(["error", "failed", "failure"]);

// `{name, args, output?, error?}` entries: each is one model turn with one call and, when given, its result.
// An entry with `role: "user"` (or only `user`) marks a new user turn.
function eventsOfToolCalls(entries: unknown[]): ReplayEvent[] {
  return entries.flatMap((raw, index): ReplayEvent[] => {
    const entry = asRecord(raw);
    if (!entry) invalid(`toolCalls[${index}] is not an object.`);
    const at = timeOf(entry);
    const when = at === undefined ? {} : { at };
    if (entry.role === "user" || entry.type === "user" || (entry.user !== undefined && entry.name === undefined)) {
      const text = entry.content ?? entry.text ?? entry.user;
      return [{ type: "user", ...when, ...(typeof text === "string" ? { text } : {}) }];
    }
    const name = asString(entry.name) ?? asString(entry.tool);
    if (!name && NARRATION_ROLES.has(entry.role as string)) return [];
    // The model's own words, no call: its answer when the run ends there (the user speaks next, or
    // nothing follows), a thought between calls otherwise (ReAct's "Thought: ...").
    if (!name && entry.role === "assistant") return endsRun(entries, index) ? [{ type: "model", calls: [], ...when }] : [];
    if (!name) invalid(`toolCalls[${index}] has no tool name (expected a non-empty "name").`);
    const id = asString(entry.id) ?? `call-${index + 1}`;
    const usage = usageOf(entry);
    const events: ReplayEvent[] = [
      { type: "model", calls: [{ id, name, args: parseArgs(entry.args ?? entry.arguments) }], ...(usage ? { usage } : {}), ...when },
    ];
    const output = OUTPUT_KEYS.find((key) => key in entry);
    if (output !== undefined || "error" in entry) {
      const flagged = entry.error ?? (entry.is_error === true || entry.isError === true || FAILED_STATUSES.has(entry.status as string) ? true : undefined);
      events.push({ type: "result", callId: id, outcome: outcomeOf(output === undefined ? undefined : entry[output], flagged) });
    }
    return events;
  });
}

function looksLikeCall(value: unknown): boolean {
  const record = asRecord(value);
  return !!record && !("role" in record) && (typeof record.name === "string" || typeof record.tool === "string");
}

function looksLikeMessage(value: unknown): boolean {
  const record = asRecord(value);
  return !!record && ("role" in record || "lc" in record || ("type" in record && !("messages" in record) && !("toolCalls" in record)));
}

/**
 * Where a trajectory keeps its messages: `messages`, a LangGraph thread's
 * state (`values.messages`), a Responses API request's `input` items, or
 * Gemini's `contents`. Undefined when it keeps none there.
 */
export function messagesOf(record: Record<string, unknown>): unknown[] | undefined {
  return [record.messages, asRecord(record.values)?.messages, record.input, record.contents].find(Array.isArray);
}

/**
 * Read one trajectory in any accepted shape: `{id?, messages}` (OpenAI or
 * LangChain messages), `{id?, toolCalls}`, or a bare array of messages or of
 * `{name, args, output}` calls.
 * An already-read ReplayTrajectory passes through. Unknown fields are
 * ignored; a shape that is none of these throws an
 * INVALID_TRAJECTORY BreakerError.
 */
export function toTrajectory(input: unknown): ReplayTrajectory {
  if (Array.isArray(input)) {
    // A bare list of {name, args, output} calls (user entries allowed), or of chat messages.
    if (input.length > 0 && input.some(looksLikeCall) && input.every((v) => looksLikeCall(v) || asRecord(v)?.role === "user")) {
      return { events: eventsOfToolCalls(input), natures: {} };
    }
    if (!input.every(looksLikeMessage)) invalid("An array here must hold chat messages or {name, args, output} calls.");
    return { events: eventsOfMessages(input), natures: {} };
  }
  const record = asRecord(input);
  if (!record) invalid(`A trajectory must be an object with "messages" or "toolCalls", not ${input === null ? "null" : typeof input}.`);
  const id = record.id === undefined || record.id === null ? undefined : String(record.id);
  const natures = naturesOf(record.natures);
  const base = id === undefined ? { natures } : { id, natures };
  const messages = messagesOf(record);
  if (messages) return { ...base, events: eventsOfMessages(messages) };
  const calls = record.toolCalls ?? record.tool_calls;
  if (Array.isArray(calls)) return { ...base, events: eventsOfToolCalls(calls) };
  // Already read (the CLI reads files first, then replays).
  if (Array.isArray(record.events) && asRecord(record.natures)) return { ...base, events: record.events as ReplayEvent[] };
  return invalid(`Trajectory${id ? ` "${id}"` : ""} has neither a "messages" array (or a Responses "input", a Gemini "contents") nor a "toolCalls" array.`);
}
