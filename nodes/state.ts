import { Annotation, MessagesAnnotation } from "@langchain/langgraph";
import type { Verdict } from "../breaker/index.js";

/**
 * The graph state, declared once: the conversation plus what Studio needs to
 * show why a run stopped. It sits with the nodes, which read and write it;
 * the graph is built on it (graphs/graph.ts).
 */
export const GuardedStateAnnotation = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** The breaker session this thread's calls are counted in. */
  sessionId: Annotation<string>({ reducer: (_prev, next) => next, default: () => "" }),
  /** True when the run was stopped (circuit breaker, or its steps running out). */
  halted: Annotation<boolean>({ reducer: (_prev, next) => next, default: () => false }),
  /**
   * The breaker's verdicts on the latest batch of tool calls, written in the
   * step that asked for them; the router reads them (a `degraded` verdict was
   * answered by a fail mode while the store was down).
   */
  verdicts: Annotation<Verdict[]>({ reducer: (_prev, next) => next, default: () => [] }),
  /** True when the latest tool calls came too close to the run's recursion limit to run: the run ends through circuit_fallback. */
  outOfSteps: Annotation<boolean>({ reducer: (_prev, next) => next, default: () => false }),
});

/** The state's value type: what every node reads. */
export type GuardedState = typeof GuardedStateAnnotation.State;
