import { handleHash } from "../outcome.js";
import type { CallRecord } from "../types.js";

// Tokens of a call's arguments that could name a piece of work: ids, numbers, names.
const TOKEN = /[\p{L}\p{N}_-]+/gu;
const MAX_TOKENS = 64;

/**
 * True when the candidate asks about work an earlier call of the run left
 * running: its arguments name a handle (a session, a job, a build id) that an
 * in-progress answer gave ("Process running with session ID 3", then
 * `write_stdin({session_id: 3, chars: ""})`). Its answers are a poll's, even
 * empty ones, until the work reports an end.
 */
export function pollsRunningWork(candidate: CallRecord, run: readonly CallRecord[]): boolean {
  let running: Set<string> | undefined;
  for (const call of run) {
    if (!call.outcome?.handles) continue;
    running ??= new Set();
    for (const handle of call.outcome.handles) running.add(handle);
  }
  if (!running) return false;
  const tokens = candidate.args.match(TOKEN) ?? [];
  for (let i = 0; i < tokens.length && i < MAX_TOKENS; i++) if (running.has(handleHash(tokens[i]!))) return true;
  return false;
}
