import { memoByCall } from "../call-memo.js";
import type { CallRecord } from "../types.js";

// Argument keys that make a call wait on purpose: wait, interval, delay, sleep (with an optional unit).
// A timeout is a cap, not a wait: a command given two minutes may finish in one second.
const WAIT_KEY = /^(wait|interval|delay|sleep|poll)(_?(for|interval|time))?(_?(ms|millis|milliseconds|s|sec|secs|seconds|m|min|mins|minutes))?$|^(wait|poll|sleep)[A-Z]\w*$/;
const MS_KEY = /(ms|millis|milliseconds|Ms|Millis)$/;
const MIN_KEY = /(_m|_min|_mins|_minutes|Minutes|Mins)$/;
// A shell command that sleeps: "sleep 30 && gh run view", "watch -n 10 ...".
const SHELL_WAIT = /\bsleep\s+(\d+(?:\.\d+)?)(s|m)?\b|\bwatch\s+-n\s*(\d+)/g;
// Longer than this a bare number is taken to be milliseconds (a timeout of 30000 is not eight hours).
const SECONDS_CEILING = 3_600;

function seconds(key: string, value: unknown): number {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) return 0;
  if (MS_KEY.test(key)) return n / 1_000;
  if (MIN_KEY.test(key)) return n * 60;
  return n > SECONDS_CEILING ? n / 1_000 : n;
}

function shellWaits(text: string): number {
  let total = 0;
  for (const match of text.matchAll(SHELL_WAIT)) {
    const value = Number(match[1] ?? match[3]);
    total += match[2] === "m" ? value * 60 : value;
  }
  return total;
}

function scan(value: unknown, key: string, depth: number): number {
  if (typeof value === "string") return WAIT_KEY.test(key) ? seconds(key, value) : shellWaits(value);
  if (typeof value === "number") return WAIT_KEY.test(key) ? seconds(key, value) : 0;
  if (value === null || typeof value !== "object" || depth > 4) return 0;
  let most = 0;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) most = Math.max(most, scan(v, Array.isArray(value) ? key : k, depth + 1));
  return most;
}

// A tool whose name says it waits ("wait_seconds", "sleep", "pause"): its numeric argument is the wait.
const WAIT_TOOL = /(^|[^a-z])(wait|sleep|pause|delay)([^a-z]|$)/i;

function waitToolSeconds(args: unknown): number {
  if (typeof args === "number") return args > 0 ? args : 0;
  if (args === null || typeof args !== "object") return 0;
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    const found = seconds(key, value);
    if (found > 0) return found;
  }
  return 0;
}

/**
 * Seconds a call waits by its own arguments: a wait, interval or delay
 * field, a `sleep N` in a shell command, or the number given to a tool that
 * only waits (`wait_seconds({seconds: 20})`). A poll that waits 60 seconds
 * per call has been polling for at least a minute per call, whatever the
 * clock says.
 */
export const waitSeconds = memoByCall<number>(2_048, (args, call) =>
  Math.max(scan(args, "", 0), WAIT_TOOL.test(call.tool) ? waitToolSeconds(args) : 0),
);

/** True when a call only waits: a wait tool, or a shell `sleep`. */
export function isWait(call: CallRecord): boolean {
  return waitSeconds(call) > 0 && (WAIT_TOOL.test(call.tool) || /^\s*"?\{?"?\w*"?:?\s*"?sleep\s+\d/.test(call.args));
}
