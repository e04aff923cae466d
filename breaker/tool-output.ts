/**
 * A tool's output as data: JSON text parsed, and results wrapped in content
 * blocks (MCP's `{content: [{type: "text", text}], isError}`, a list of
 * LangChain content blocks) reduced to their text, and a terminal's colour
 * codes dropped from text, so every reader sees the same value however the
 * harness wrapped it.
 */
export interface ToolOutput {
  value: unknown;
  /** The wrapper flagged the result as an error (`isError: true`). */
  flaggedError: boolean;
}

type Fields = Record<string, unknown>;

const asFields = (value: unknown): Fields | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;

// A terminal's control sequences: colours and cursor moves (CSI), titles and links (OSC), single escapes.
const TERMINAL_CONTROL = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;

/** Text as a terminal shows it: a program's colours are presentation, not what it said. */
export function withoutTerminalControl(text: string): string {
  return text.includes("\x1b") ? text.replace(TERMINAL_CONTROL, "") : text;
}

/** JSON text as data; anything else as given. */
export function parseIfJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (!text.startsWith("{") && !text.startsWith("[")) return value;
  try {
    return JSON.parse(text);
  } catch {
    return value;
  }
}

const isBlock = (value: unknown) => typeof asFields(value)?.type === "string";

function blocksText(blocks: readonly unknown[]): unknown {
  const texts = blocks.map((b) => asFields(b)!).filter((b) => typeof b.text === "string").map((b) => withoutTerminalControl(b.text as string));
  return parseIfJson(texts.join("\n"));
}

const WRAPPER_KEYS = new Set(["content", "type", "isError", "is_error"]);

// A result rendered as markdown around one JSON code block ("Additional data:\n```json {...}```\nStatus: done"):
// the block is the result, the few words around it are the renderer's.
// A block that is not JSON leaves the text as it is.
const FENCED_JSON = /^([^`]{0,80})```json\s*\n([\s\S]*?)\n```([^`]{0,80})$/;
function parseText(text: string): unknown {
  const match = text.includes("```json") ? FENCED_JSON.exec(text.trim()) : null;
  const block = match ? parseIfJson(match[2]) : undefined;
  return block !== undefined && typeof block !== "string" ? block : parseIfJson(text);
}

/** Read a tool's raw output (see the module comment). */
export function readToolOutput(raw: unknown): ToolOutput {
  const value = typeof raw === "string" ? parseText(withoutTerminalControl(raw)) : raw;
  if (Array.isArray(value) && value.length > 0 && value.every(isBlock)) return { value: blocksText(value), flaggedError: false };
  const fields = asFields(value);
  if (!fields || !Array.isArray(fields.content) || fields.content.length === 0 || !fields.content.every(isBlock)) {
    return { value, flaggedError: false };
  }
  const text = blocksText(fields.content);
  const rest = Object.entries(fields).filter(([key]) => !WRAPPER_KEYS.has(key));
  return {
    value: rest.length === 0 ? text : { ...Object.fromEntries(rest), content: text },
    flaggedError: fields.isError === true || fields.is_error === true,
  };
}
