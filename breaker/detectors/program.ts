// Arguments that hold a program the model wrote: a command line, an argv list, a script, code, SQL.

const PROGRAM_KEYS = ["command", "cmd", "argv", "command_line", "commandLine", "script", "code", "sql", "sql_query", "sqlQuery"];

/** True when parsed arguments run a program (`bash({command})`, `python({code})`), not a fixed operation. */
export function hasProgram(args: unknown): boolean {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return false;
  return PROGRAM_KEYS.some((key) => {
    const value = (args as Record<string, unknown>)[key];
    // One word is an operation's name (`str_replace_editor({command: "view"})`), not a program.
    return (typeof value === "string" && /\S\s+\S/.test(value.trim())) || (Array.isArray(value) && value.length > 1);
  });
}

// A caption the model writes for the program beside it (the `description` of Claude Code's and Gemini
// CLI's shell tools): what runs is the program; its caption is reworded at will on every rerun.
const CAPTION_KEY = /^(description|summary|comment|note)$/i;

/** True when a top-level argument is a caption of the program the same arguments hold. */
export const isCaption = (key: string, program: boolean) => program && CAPTION_KEY.test(key);
