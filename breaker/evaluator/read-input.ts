import { BreakerError } from "../errors.js";
import { asRecord } from "./fields.js";
import { lineAt, scanJson } from "./json-scan.js";
import { messagesOf } from "./to-trajectory.js";

/** One trajectory's JSON as read from a file, with the line it starts on. */
export interface SourceItem {
  value: unknown;
  line: number;
}

/** A file that cannot be read as trajectories: names the file and line, for exit code 2. */
export class InputError extends BreakerError {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super("INVALID_TRAJECTORY", `${file}:${line}: ${reason}`);
  }
}

function syntaxError(file: string, text: string, lineOffset: number): InputError {
  const scan = scanJson(text);
  const offset = scan.error?.offset ?? text.length;
  return new InputError(file, lineOffset + lineAt(text, offset) - 1, `invalid JSON (${scan.error?.reason ?? "unreadable"}).`);
}

// A trajectory of its own, not one of a trajectory's messages or calls. `tool_calls` names a trajectory's call
// list only where it is not an assistant message's.
const isTrajectory = (v: unknown): boolean => {
  const fields = asRecord(v);
  return !!fields && ("messages" in fields || "toolCalls" in fields || ("tool_calls" in fields && !("role" in fields)) || messagesOf(fields) !== undefined);
};

function isArrayOfTrajectories(value: unknown[]): boolean {
  return value.some(isTrajectory);
}

/**
 * Split a file into trajectories: one JSON object, a JSON array of them (or
 * of chat messages, read as one trajectory), or JSON Lines. Syntax errors
 * throw an InputError naming the file and line.
 */
export function readTrajectoryItems(text: string, file: string): SourceItem[] {
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") throw new InputError(file, 1, "the file is empty.");
  let whole: unknown;
  try {
    whole = JSON.parse(body);
  } catch {
    // Not one JSON document: JSON Lines when its first line stands alone, else a broken document.
    const first = body.split("\n").find((l) => l.trim() !== "") ?? "";
    if (!scanJson(first.trim()).error) return readJsonLines(body, file);
    throw syntaxError(file, body, 1);
  }
  if (Array.isArray(whole) && whole.length === 0) return [];
  if (!Array.isArray(whole) || !isArrayOfTrajectories(whole)) return [{ value: whole, line: lineAt(body, body.search(/\S/)) }];
  const { elements } = scanJson(body);
  return whole.map((value, i) => ({ value, line: elements[i] !== undefined ? lineAt(body, elements[i]!) : 1 }));
}

function readJsonLines(body: string, file: string): SourceItem[] {
  const items: SourceItem[] = [];
  body.split(/\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    try {
      items.push({ value: JSON.parse(line), line: index + 1 });
    } catch {
      throw syntaxError(file, line, index + 1);
    }
  });
  // Lines that are messages or calls, not trajectories (a Claude Code or Codex session log): one trajectory.
  if (items.length > 0 && !items.some((item) => isTrajectory(item.value))) return [{ value: items.map((item) => item.value), line: items[0]!.line }];
  return items;
}
