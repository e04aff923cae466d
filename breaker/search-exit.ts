import { commandLineOf } from "./detectors/operation.js";

// A search as the command line's last stage: `grep -rn X src`, `npm run build 2>&1 | findstr /i "error"`, `rg X`.
const SEARCH_LAST = /(^|[|;&]\s*)(e?grep|fgrep|rg|ag|ack|findstr|select-string|sls)(\s[^|;&]*)?$/i;
// All a harness printed for a program that exited 1 without a word: "[exitCode: 1]", "Exit code 1", "exit status 1".
const ONLY_EXIT_ONE =
  /^\[?\s*((command|process)\s+)?(exit(ed)?(\s+with)?(\s+(exit\s+)?(code|status))?|exit_?code|return(ed)?\s+code|returncode)\s*[:=]?\s*1\s*\]?\.?$/i;

/**
 * True when a search found nothing: its command ends in a search (grep,
 * ripgrep, findstr, Select-String) and all it printed is that it exited 1,
 * which is how such a program says no line matched. An empty answer, not a
 * failure: `build | findstr error` exiting 1 means the build printed no errors.
 */
export function searchFoundNothing(args: unknown, output: unknown): boolean {
  if (typeof output !== "string") return false;
  const line = commandLineOf(args)?.trim();
  return line !== undefined && SEARCH_LAST.test(line) && ONLY_EXIT_ONE.test(output.trim());
}
