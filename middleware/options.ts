import { parsePolicy, type Breaker, type BreakerStore, type Policy, type PolicyInput } from "../breaker/index.js";
import { LoopBreakerOptionsError } from "./errors.js";

/** What a trip does, with the choices of toolCallLimitMiddleware's `exitBehavior`. */
export const EXIT_BEHAVIORS = ["end", "error", "continue"] as const;
export type LoopBreakerExitBehavior = (typeof EXIT_BEHAVIORS)[number];

/** The part of a hook's runtime a session function reads. */
export interface SessionRuntime {
  configurable?: { thread_id?: string; [key: string]: unknown };
}

/** Options of loopBreakerMiddleware; every one may be left out. */
export interface LoopBreakerMiddlewareOptions {
  /** A ready breaker, used as it is (its policy, its store, its events). Excludes `store` and `policy`. */
  breaker?: Breaker;
  /** Where sessions live when the middleware builds the breaker. Default: a new in-process MemoryStore. */
  store?: BreakerStore;
  /** Any subset of the breaker policy; the natures the tools declare are added unless it states its own. */
  policy?: PolicyInput | Policy;
  /**
   * The breaker session: a fixed id, or a function of the hook's runtime
   * (for instance a user id from `runtime.configurable`). Default, and whenever it gives
   * nothing: the thread id; a run without a thread gets a session of its own.
   */
  sessionId?: string | ((runtime: SessionRuntime) => string | undefined);
  /**
   * What a trip does. "end" (default): every call of the refused message is
   * answered with a CIRCUIT_BREAKER_TRIPPED error and the run ends with an
   * answer saying what tripped. "error": the run throws a
   * LoopBreakerTrippedError before the refused message enters the thread.
   * "continue": the refused calls are answered as errors and the model gets a
   * turn to answer with what it has; if it asks for tools again while the
   * circuit is open, the run ends as with "end".
   */
  exitBehavior?: LoopBreakerExitBehavior;
}

/** Options checked and defaulted. */
export interface LoopBreakerSettings {
  breaker?: Breaker;
  store?: BreakerStore;
  policy: Policy;
  exitBehavior: LoopBreakerExitBehavior;
  /** The session the options choose for a run, or undefined to use the thread. */
  sessionFor(runtime: SessionRuntime): string | undefined;
}

function fail(message: string): never {
  throw new LoopBreakerOptionsError(message);
}

function isBreaker(value: unknown): value is Breaker {
  const b = value as Partial<Breaker> | null;
  return typeof b === "object" && b !== null && typeof b.checkBatch === "function" && typeof b.complete === "function";
}

/** Validate the options up front, so a mistake shows when the agent is built, not at its first tool call. */
export function resolveOptions(raw: unknown): LoopBreakerSettings {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== "object" || Array.isArray(raw)) fail("loopBreakerMiddleware takes an options object, or nothing.");
  const options = raw as LoopBreakerMiddlewareOptions;
  const known = new Set(["breaker", "store", "policy", "sessionId", "exitBehavior"]);
  const unknown = Object.keys(options).filter((k) => !known.has(k));
  if (unknown.length) fail(`Unknown loopBreakerMiddleware option(s): ${unknown.join(", ")}. Known options: ${[...known].join(", ")}.`);

  if (options.breaker !== undefined) {
    if (!isBreaker(options.breaker)) fail("`breaker` must be a breaker made by createBreaker().");
    if (options.store !== undefined || options.policy !== undefined) {
      fail("Pass either `breaker`, or `store` and `policy`: a ready breaker already has its store and policy.");
    }
  }
  const exitBehavior = options.exitBehavior ?? "end";
  if (!EXIT_BEHAVIORS.includes(exitBehavior)) {
    fail(`Invalid exitBehavior ${JSON.stringify(exitBehavior)}: use "end", "error" or "continue".`);
  }
  const { sessionId } = options;
  if (sessionId !== undefined && typeof sessionId !== "function" && (typeof sessionId !== "string" || sessionId === "")) {
    fail("`sessionId` must be a non-empty string or a function of the runtime returning one.");
  }
  const sessionFor = (runtime: SessionRuntime): string | undefined => {
    const chosen = typeof sessionId === "function" ? sessionId(runtime) : sessionId;
    return typeof chosen === "string" && chosen !== "" ? chosen : undefined;
  };
  return {
    ...(options.breaker ? { breaker: options.breaker } : {}),
    ...(options.store ? { store: options.store } : {}),
    // Parsed now: a bad policy throws a BreakerError (INVALID_POLICY) naming the field.
    policy: options.breaker ? options.breaker.policy : parsePolicy(options.policy ?? {}),
    exitBehavior,
    sessionFor,
  };
}
