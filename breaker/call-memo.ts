import { BoundedTable } from "./bounded-cache.js";
import type { CallRecord } from "./types.js";

// Tools remembered under one argument set: the same arguments under many tool names is rare.
const TOOLS_PER_ARGS = 16;

/**
 * A fact about a call read from its arguments (seconds it waits, whether it
 * writes), computed once per tool and argument set: each check reads the same
 * window again, and the arguments are a capped canonical JSON string (a clipped
 * one is read as text). Found by argument hash, then tool (see BoundedTable):
 * a check reads it for most calls of its window.
 */
export function memoByCall<T>(capacity: number, read: (args: unknown, call: CallRecord) => T): (call: CallRecord) => T {
  const cache = new BoundedTable<T>(capacity, TOOLS_PER_ARGS);
  return (call) => {
    let found = cache.get(call.argsHash, call.tool);
    if (found === undefined) {
      let args: unknown;
      try {
        args = JSON.parse(call.args);
      } catch {
        args = call.args;
      }
      found = read(args, call);
      cache.set(call.argsHash, call.tool, found);
    }
    return found;
  };
}
