import { memoByCall } from "../call-memo.js";

// Argument fields that hold a command line, and those that name a multi-purpose tool's operation.
const COMMAND_KEYS = ["command", "cmd", "script"];
const OPERATION_KEYS = ["command", "action", "operation", "op"];
// What stands before the program a command line runs: `cd <dir> &&`, `VAR=value`, `sudo`, `timeout 30`.
const PREFIX = /^(\s*(cd\s+\S+\s*(&&|;)|[A-Za-z_]\w*=\S*\s|sudo\s|timeout\s+\S+\s|env\s))+/;

/** The program a command line runs (its path dropped) and the word after it, past `cd <dir> &&`, `VAR=value`, `sudo`. */
export function commandWords(line: string): { program?: string; next?: string } {
  const [first, next] = line.replace(PREFIX, "").trim().split(/\s+/, 2);
  const program = first && /^[\w./-]+$/.test(first) ? first.split("/").pop() : undefined;
  return { ...(program ? { program } : {}), ...(next ? { next } : {}) };
}

const programOf = (line: string) => commandWords(line).program;

/**
 * What a call does, for telling a shell's searches from its reads: the
 * program a command runner runs (`bash({command: "grep -rn x ."})` is
 * `bash grep`), the operation a multi-purpose tool is asked for
 * (`str_replace_editor({command: "view"})`), or else the tool itself.
 */
export const operationOf = memoByCall<string>(2_048, (args, call) => {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return call.tool;
  const fields = args as Record<string, unknown>;
  for (const key of COMMAND_KEYS) {
    const value = fields[key];
    const line = typeof value === "string" ? value : Array.isArray(value) && value.every((v) => typeof v === "string") ? value.join(" ") : undefined;
    if (line !== undefined && /\S\s+\S/.test(line.trim())) {
      const program = programOf(line);
      return program ? `${call.tool} ${program}` : call.tool;
    }
  }
  for (const key of OPERATION_KEYS) {
    const value = fields[key];
    if (typeof value === "string" && /^[\w-]+$/.test(value.trim())) return `${call.tool} ${value.trim()}`;
  }
  return call.tool;
});
