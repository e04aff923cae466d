import { END, START, StateGraph } from "@langchain/langgraph";
import { createAgentNode } from "../nodes/agent.js";
import { createCircuitFallbackNode } from "../nodes/circuit-fallback.js";
import { createCircuitReviewNode } from "../nodes/circuit-review.js";
import { route } from "../nodes/route.js";
import { GuardedStateAnnotation } from "../nodes/state.js";
import { recursionLimitFor } from "../nodes/step-budget.js";
import { createToolsNode } from "../nodes/tools.js";
import { EXAMPLE_TOOLS } from "../tools/index.js";
import { ContextAnnotation } from "./context.js";
import { logStoreEvents } from "./outage-log.js";
import { createRunResolver, type GraphDeps } from "./run-resolver.js";
import { serverStore } from "./store-from-env.js";

export type { GraphDeps } from "./run-resolver.js";

// The one method of the compiled graph the check wraps (public in LangGraph's types).
interface Streaming {
  _streamIterator(input: unknown, options?: { context?: unknown }): AsyncGenerator<unknown>;
}

/**
 * Make `graph` refuse a run whose context it cannot use before the run
 * writes anything (a refused run must not leave its user message in the
 * thread). LangGraph checks a context only against a zod context schema; this
 * one is an Annotation, so Studio gets its form, and is checked here, in the
 * method every invoke, stream and streamEvents goes through. A subclass of the
 * graph's own class, so `withConfig` copies keep the check.
 */
function refusingBadContext<G extends object>(graph: G, check: (context: unknown) => void): G {
  const Base = graph.constructor as new (...args: never[]) => Streaming;
  class CheckedGraph extends Base {
    // Not a generator of its own: delegating every chunk through one would cost each step.
    override _streamIterator(input: unknown, options?: { context?: unknown }): AsyncGenerator<unknown> {
      check(options?.context);
      return super._streamIterator(input, options);
    }
  }
  Object.setPrototypeOf(graph, CheckedGraph.prototype);
  return graph;
}

/**
 * Build the guarded agent: agent (model, then the breaker's verdicts) ->
 * tools | circuit_fallback | END, or circuit_review (a person decides) on a
 * trip when the run's context says `onTrip: "ask"`. Every dependency can be
 * injected, for tests and forks. The compiled graph carries a recursion limit derived from the
 * policy's run limit, so the breaker, not a GraphRecursionError, ends a
 * runaway turn; a run given a lower limit still ends through circuit_fallback.
 */
export function buildGraph(deps: GraphDeps = {}) {
  const log = deps.log ?? ((line: string) => console.warn(line));
  const runs = createRunResolver({ ...deps, log, tools: deps.tools ?? EXAMPLE_TOOLS });
  logStoreEvents(runs.store, runs.redact, log);
  const compiled = new StateGraph(GuardedStateAnnotation, ContextAnnotation)
    .addNode("agent", createAgentNode(runs.resolve))
    .addNode("tools", createToolsNode(runs.resolve))
    .addNode("circuit_fallback", createCircuitFallbackNode(runs.resolve))
    .addNode("circuit_review", createCircuitReviewNode(runs.resolve), { ends: ["agent", "circuit_fallback"] })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state, config) => route(state, runs.onTrip(config)), ["tools", "circuit_fallback", "circuit_review", END])
    .addEdge("tools", "agent")
    .addEdge("circuit_fallback", END)
    .compile({ checkpointer: deps.checkpointer })
    .withConfig({ recursionLimit: recursionLimitFor(runs.policy) });
  return refusingBadContext(compiled, runs.checkContext);
}

/** The graph the LangGraph server and Studio load (see langgraph.json), over the store the server's ops routes read. */
export const graph = buildGraph({ store: serverStore() });
graph.name = "Guarded agent";
