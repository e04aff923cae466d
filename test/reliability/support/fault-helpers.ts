import { AIMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { expect } from "vitest";
import type { BreakerStore, RedisFailMode, StoreEvent } from "../../../breaker/index.js";
import { buildGraph } from "../../../graphs/graph.js";
import { ReplayChatModel, callsTurn, frameOf, runTurn, toolMessages, toolReplyProblems, type TurnResult } from "../../support/graph-helpers.js";
import { probeTool, type ProbeTool } from "./probe-tools.js";

/** One store operation and how long it took. */
export interface Timing {
  op: string;
  ms: number;
}

/** A store that records how long every operation took, so a test can bound the waits a fault causes. */
export function timedStore(inner: BreakerStore): { store: BreakerStore; timings: Timing[] } {
  const timings: Timing[] = [];
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        const done = () => timings.push({ op: String(property), ms: performance.now() - started });
        return result.finally(done);
      };
    },
  });
  return { store, timings };
}

/** The slowest operation recorded, for the report line. */
export function slowest(timings: readonly Timing[]): Timing {
  return timings.reduce((a, b) => (b.ms > a.ms ? b : a), { op: "none", ms: 0 });
}

/** Fail unless every recorded operation finished within `boundMs`. */
export function expectBounded(timings: readonly Timing[], boundMs: number): void {
  expect(timings.length).toBeGreaterThan(0);
  const late = timings.filter((t) => t.ms > boundMs).map((t) => `${t.op} ${Math.round(t.ms)} ms`);
  expect(late, `operations slower than ${boundMs} ms`).toEqual([]);
}

/** A graph run that must finish: rejects with a clear message if it is still running after `deadlineMs`. */
export async function finishes<T>(work: Promise<T>, deadlineMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} was still running after ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Outcome of a graph run with a fault injected by its second tool call. */
export interface FaultRun {
  result: TurnResult;
  probe: ProbeTool;
  events: StoreEvent[];
}

/**
 * Run one user turn of four distinct `probe` calls on `thread` (breaker
 * session `thread:<thread>`); the second call's tool body runs `fault` (kill
 * or pause Redis) before returning, so the fault lands mid-run, between two
 * breaker checks.
 */
export async function runWithFault(
  store: BreakerStore,
  thread: string,
  fault: () => Promise<void> | void,
  deadlineMs: number,
): Promise<FaultRun> {
  const events: StoreEvent[] = [];
  const unsubscribe = store.subscribe?.((e) => events.push(e));
  const probe = probeTool("probe", async (n) => {
    if (n === 2) await fault();
    return { n };
  });
  const tools: StructuredToolInterface[] = [probe.tool];
  const model = new ReplayChatModel([1, 2, 3, 4].map((n) => callsTurn({ name: "probe", args: { n } })));
  try {
    const result = await finishes(runTurn(buildGraph({ model, store, tools }), "Run the four steps.", { thread }), deadlineMs, "the graph run");
    expect(toolReplyProblems(result.state.messages)).toEqual([]);
    return { result, probe, events };
  } finally {
    unsubscribe?.();
  }
}

/**
 * What a four-call run during an outage must show: `closed` halts at the
 * first check Redis cannot answer (after `ranBefore` calls) with
 * store_unavailable frames; `open` runs all four from process memory and
 * reports a fallback.
 */
export function expectFailModeBehaviour(failMode: RedisFailMode, run: FaultRun, ranBefore: number): void {
  const { result, probe, events } = run;
  if (failMode === "closed") {
    expect(result.state.halted).toBe(true);
    expect(probe.runs()).toBe(ranBefore);
    const frames = toolMessages(result.state.messages).filter((m) => m.status === "error");
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((m) => frameOf(m).detector === "store_unavailable")).toBe(true);
  } else {
    expect(result.state.halted).toBe(false);
    expect(probe.runs()).toBe(4);
    const last = result.state.messages.at(-1)!;
    expect(AIMessage.isInstance(last) && last.content).toBe("Final answer.");
    expect(events.some((e) => e.type === "fallback")).toBe(true);
  }
}
