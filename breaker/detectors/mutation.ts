import { memoByCall } from "../call-memo.js";
import { keyWords } from "../key-words.js";
import { commandWords, OPERATION_KEYS } from "./operation.js";

// Verbs that change what a later call may find: files written, records changed, packages installed, a setting
// switched or a service restarted.
const MUTATING_VERB =
  /^(edit|editor|write|patch|apply|create|update|upsert|delete|remove|insert|replace|move|rename|set|put|save|append|modify|overwrite|install|uninstall|commit|mkdir|touch|chmod|upload|restore|revert|fix|enable|disable|toggle|reset|restart|reboot|add|cancel|activate|deactivate|configure)$/;
// A shell command that changes files or the environment: in-place edits, redirections into files, file
// moves, git's writing commands (those that change the working tree or the repository), package installs.
const SHELL_MUTATION = new RegExp(
  [
    "\\bsed\\s+(-\\w*\\s+)*-i",
    "(^|[^0-9&>2])>>?\\s*[^\\s&>|]",
    "\\btee\\b",
    "(^|[;&|]\\s*|\\s)(mv|cp|rm|mkdir|touch|chmod|ln|truncate|patch)\\s",
    "\\bgit\\s+(apply|commit|checkout|reset|add|stash|merge|rebase|restore|cherry-pick|am|revert|mv|rm|clone|pull|push|init|switch|clean|tag|branch\\s+-[dDmM])\\b",
    "\\b(pip3?|npm|pnpm|yarn|uv|poetry|cargo|go|apt(-get)?|brew|gem)\\s+(install|add|remove|uninstall|get)\\b",
    "\\b(write_text|write_bytes|\\.write\\(|open\\([^)]*['\"][wa]b?['\"])",
  ].join("|"),
);

const writes = (word: string) => keyWords(word).some((w) => MUTATING_VERB.test(w));

// A command whose operation is a writing verb: its subcommand when it names one (`kubectl apply`, `docker restart`,
// SWE-agent's `str_replace_editor str_replace <path> ...`), else the program (`edit 12:14`, `apply_patch <<EOF`).
// `str_replace_editor view <path>` reads.
function commandWrites(line: string): boolean {
  const { program, next } = commandWords(line);
  if (next && /^[a-z][a-z_-]*$/i.test(next)) return writes(next);
  return program !== undefined && writes(program);
}

function mutatesByArgs(args: unknown): boolean | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  for (const key of OPERATION_KEYS) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value !== "string") continue;
    const text = value.trim();
    // One word names the operation; a command line is read as the shell would run it.
    return /^[\w-]+$/.test(text) ? writes(text) : SHELL_MUTATION.test(text) || commandWrites(text);
  }
  return undefined;
}

/**
 * True when a call changes the world a later call looks at: a tool whose name
 * is a writing verb (`edit_file`, `apply_patch`, `create_record`), a
 * multi-purpose tool asked for such an operation, or a shell command that
 * writes (`sed -i`, `> file`, `git apply`, `pip install`). After such a change
 * the same failing test run again is a new test of a changed program; after a
 * read it is the same test.
 */
export const mutates = memoByCall<boolean>(
  2_048,
  (args, call) =>
    mutatesByArgs(args) ?? ((typeof args === "string" && SHELL_MUTATION.test(args)) || writes(call.tool)),
);
