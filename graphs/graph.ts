import { END, START, StateGraph } from "@langchain/langgraph";
import { createAgentNode } from "../nodes/agent.js";
import { createCircuitFallbackNode } from "../nodes/circuit-fallback.js";
import { createRouter } from "../nodes/route.js";
import { createToolsNode } from "../nodes/tools.js";
import { EXAMPLE_TOOLS } from "../tools/index.js";
import { ContextAnnotation } from "./context.js";
import { createRunResolver, type GraphDeps } from "./run-resolver.js";
import { GuardedStateAnnotation } from "./state.js";
import { createStoreFromEnv } from "./store-from-env.js";

export type { GraphDeps } from "./run-resolver.js";

/**
 * Build the guarded agent: agent -> (breaker) -> tools | circuit_fallback | END.
 * Every dependency can be injected, for tests and forks.
 */
export function buildGraph(deps: GraphDeps = {}) {
  const resolve = createRunResolver({
    ...deps,
    tools: deps.tools ?? EXAMPLE_TOOLS,
    store: deps.store ?? (deps.breaker ? deps.breaker.store : createStoreFromEnv(deps.env ?? process.env)),
  });
  return new StateGraph(GuardedStateAnnotation, ContextAnnotation)
    .addNode("agent", createAgentNode(resolve))
    .addNode("tools", createToolsNode(resolve))
    .addNode("circuit_fallback", createCircuitFallbackNode(resolve))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", createRouter(resolve), ["tools", "circuit_fallback", END])
    .addEdge("tools", "agent")
    .addEdge("circuit_fallback", END)
    .compile({ checkpointer: deps.checkpointer });
}

/** The graph the LangGraph server and Studio load (see langgraph.json). */
export const graph = buildGraph();
graph.name = "Guarded agent";
