import { createBreaker, MemoryStore, parsePolicy, type Breaker, type Policy, type ToolNature } from "../breaker/index.js";
import { declaredNature } from "../tools/define-tool.js";
import type { LoopBreakerSettings } from "./options.js";

/** A tool as createAgent hands it to middleware: a LangChain tool, or a provider's server tool. */
type AnyTool = { name?: unknown } | Record<string, unknown>;

/** The policy with each tool's declared nature, unless the policy states a nature for that tool itself. */
export function withDeclaredNatures(policy: Policy, natures: ReadonlyMap<string, ToolNature>): Policy {
  const tools: Policy["tools"] = { ...policy.tools };
  for (const [name, nature] of natures) tools[name] = { nature, ...policy.tools[name] };
  return parsePolicy({ ...policy, tools });
}

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
 * nature it has not seen: the tools are only known from the model requests
 * (and a tool selector may offer a different subset on each), so the natures
 * grow as a union. Rebuilding is cheap and rare; verdicts already given stay
 * in the agent state, and the store, where sessions live, is shared.
 */
export function breakerSource(settings: LoopBreakerSettings): BreakerSource {
  const { breaker: given } = settings;
  if (given) return { forTools: () => given, current: () => given };
  const store = settings.store ?? new MemoryStore();
  const natures = new Map<string, ToolNature>();
  let breaker = createBreaker({ store, policy: settings.policy });
  return {
    forTools(tools) {
      let learnt = false;
      for (const tool of tools as AnyTool[]) {
        const name = tool?.name;
        const nature = declaredNature(tool);
        if (typeof name !== "string" || !nature || natures.get(name) === nature) continue;
        natures.set(name, nature);
        learnt = true;
      }
      if (learnt) breaker = createBreaker({ store, policy: withDeclaredNatures(settings.policy, natures) });
      return breaker;
    },
    current: () => breaker,
  };
}
