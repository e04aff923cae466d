import { Annotation, MessagesAnnotation } from "@langchain/langgraph";
import type { Verdict } from "../breaker/index.js";

/** The graph state: the conversation plus what Studio needs to show why a run stopped. */
export const GuardedStateAnnotation = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** The breaker session this thread's calls are counted in. */
  sessionId: Annotation<string>({ reducer: (_prev, next) => next, default: () => "" }),
  /** True when the circuit breaker stopped the run. */
  halted: Annotation<boolean>({ reducer: (_prev, next) => next, default: () => false }),
  /** The breaker's verdicts on the latest batch of tool calls. */
  verdicts: Annotation<Verdict[]>({ reducer: (_prev, next) => next, default: () => [] }),
});

/** The state's value type. */
export type GuardedGraphState = typeof GuardedStateAnnotation.State;
