import { createBreaker, MemoryStore, withToolDeclarations, type Breaker, type ToolDeclaration } from "../breaker/index.js";
import { toolDeclaration } from "../tools/define-tool.js";
import type { LoopBreakerSettings } from "./options.js";

/** A tool as createAgent hands it to middleware: a LangChain tool, or a provider's server tool. */
type AnyTool = { name?: unknown } | Record<string, unknown>;

/** The breaker the middleware uses, and how it learns the tools' natures. */
export interface BreakerSource {
  /** The breaker for a model call offering these tools; learns the natures they declare. */
  forTools(tools: readonly unknown[]): Breaker;
  /** The breaker as of the natures learnt so far. */
  current(): Breaker;
}

/**
 * A ready breaker is used as it is. Otherwise the middleware builds one over
 * one store, and rebuilds it when a model call offers a tool whose declared
 * nature or poll budget it has not seen: the tools are only known from the
 * model requests (and a tool selector may offer a different subset on each),
 * so the declarations grow as a union. Rebuilding is cheap and rare; verdicts already given stay
 * in the agent state, and the store, where sessions live, is shared.
 */
export function breakerSource(settings: LoopBreakerSettings): BreakerSource {
  const { breaker: given } = settings;
  if (given) return { forTools: () => given, current: () => given };
  const store = settings.store ?? new MemoryStore();
  const declarations: Record<string, ToolDeclaration> = {};
  let breaker = createBreaker({ store, policy: settings.policy });
  return {
    forTools(tools) {
      let learnt = false;
      for (const tool of tools as AnyTool[]) {
        const name = tool?.name;
        const declared = toolDeclaration(tool);
        if (typeof name !== "string" || !declared || JSON.stringify(declarations[name]) === JSON.stringify(declared)) continue;
        declarations[name] = declared;
        learnt = true;
      }
      if (learnt) breaker = createBreaker({ store, policy: withToolDeclarations(settings.policy, declarations) });
      return breaker;
    },
    current: () => breaker,
  };
}
