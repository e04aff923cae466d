import { BoundedCache } from "./bounded-cache.js";
import type { CallRecord } from "./types.js";

/**
 * A fact about a call read from its arguments (seconds it waits, whether it
 * writes), computed once per tool and argument set: each check reads the same
 * window again, and the arguments are a capped canonical JSON string (a clipped
 * one is read as text).
 */
export function memoByCall<T>(capacity: number, read: (args: unknown, call: CallRecord) => T): (call: CallRecord) => T {
  const cache = new BoundedCache<string, T>(capacity);
  return (call) => {
    const key = `${call.tool}\u0000${call.argsHash}`;
    let found = cache.get(key);
    if (found === undefined) {
      let args: unknown;
      try {
        args = JSON.parse(call.args);
      } catch {
        args = call.args;
      }
      found = read(args, call);
      cache.set(key, found);
    }
    return found;
  };
}
