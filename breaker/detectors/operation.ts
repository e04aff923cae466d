import { memoByCall } from "../call-memo.js";

// Argument fields that hold a command line (`{command: "grep -rn x ."}`, `{cmd: ["echo", "ok"]}`).
const COMMAND_KEYS = ["command", "cmd", "script"];
/** Argument fields that name the operation of a multi-purpose tool (`str_replace_editor({command: "view"})`). */
export const OPERATION_KEYS = ["command", "action", "operation", "op"];
// What stands before the program a command line runs: `cd <dir> &&`, `VAR=value`, `sudo`, `timeout 30`.
const PREFIX = /^(\s*(cd\s+\S+\s*(&&|;)|[A-Za-z_]\w*=\S*\s|sudo\s|timeout\s+\S+\s|env\s))+/;

/** The command line a call's arguments hold: a bare string, a string under a command key, or an argv list joined. */
export function commandLineOf(args: unknown): string | undefined {
  if (typeof args === "string") return args;
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  for (const key of COMMAND_KEYS) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(" ");
  }
  return undefined;
}

/** The program a command line runs (its path dropped) and the word after it, past `cd <dir> &&`, `VAR=value`, `sudo`. */
export function commandWords(line: string): { program?: string; next?: string } {
  const [first, next] = line.replace(PREFIX, "").trim().split(/\s+/, 2);
  const program = first && /^[\w./-]+$/.test(first) ? first.split("/").pop() : undefined;
  return { ...(program ? { program } : {}), ...(next ? { next } : {}) };
}

/**
 * What a call does, for telling a shell's searches from its reads: the
 * program a command runner runs (`bash({command: "grep -rn x ."})` is
 * `bash grep`), the operation a multi-purpose tool is asked for
 * (`str_replace_editor({command: "view"})`), or else the tool itself.
 */
export const operationOf = memoByCall<string>(2_048, (args, call) => {
  const line = commandLineOf(args)?.trim();
  if (line && /\S\s+\S/.test(line)) {
    const { program } = commandWords(line);
    return program ? `${call.tool} ${program}` : call.tool;
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) return call.tool;
  for (const key of OPERATION_KEYS) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === "string" && /^[\w-]+$/.test(value.trim())) return `${call.tool} ${value.trim()}`;
  }
  return call.tool;
});
