import { memoByCall } from "../call-memo.js";
import { commandLineOf } from "./operation.js";

// A shell that runs the rest of the line: `cmd /c echo marker1`, `bash -c "true"`.
const SHELL_WRAPPER = /^(cmd(\.exe)?\s+\/c|(ba|z)?sh\s+-l?c|powershell(\.exe)?\s+(-command|-c))\s+/i;
// Anything that reads, expands or writes: a variable, a substitution, a pipe, a redirection, a glob.
// Without these, `echo` and `printf` print only the words they were given.
const NOT_LITERAL = /[$`|<>*?(){}\\]/;
// The shell's commands that do nothing but succeed or print their own arguments back.
const NO_OP = /^(true|:|(echo|printf|write-host)(\s.*)?)$/i;

function unquoted(text: string): string {
  const trimmed = text.trim();
  const quoted = /^(["'])(.*)\1$/s.exec(trimmed);
  return quoted ? quoted[2]!.trim() : trimmed;
}

/** True when a command line, run, can only print back its own words: `true`, `echo done`, `cmd /c echo marker1`. */
export function isNoOpCommand(line: string): boolean {
  const command = unquoted(line.trim().replace(SHELL_WRAPPER, ""));
  if (command === "" || NOT_LITERAL.test(command)) return false;
  // A chain of no-ops is one (`echo start; echo done`); one real command among them is work.
  return command.split(/\s*(?:&&|;|\n)\s*/).every((part) => NO_OP.test(part.trim()));
}

/**
 * True when a call runs a command that does no work: it only succeeds
 * (`true`) or prints back the literal words it was given (`echo ok`,
 * `cmd /c echo marker1`). Its answer is known before it runs, so it can
 * bring nothing new, whatever the harness says about it ("Command executed
 * successfully"): a model emitting such calls one after another is stalling,
 * not working.
 */
export const isNoOp = memoByCall<boolean>(2_048, (args) => {
  const command = commandLineOf(args);
  return command !== undefined && isNoOpCommand(command);
});
