import { randomUUID } from "node:crypto";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { CALLER_SESSIONS_VAR, type Deployment } from "./deployment.js";
import { InvalidContextError, type AgentContext } from "./context.js";

/** The caller a session name is scoped to when the server authenticated nobody. */
export const ANONYMOUS_CALLER = "anonymous";

/**
 * The authenticated user of a run on the LangGraph server (its custom auth
 * fills `serverInfo.user`), else ANONYMOUS_CALLER: without auth every caller
 * is the same tenant.
 */
export function callerOf(config: LangGraphRunnableConfig): string {
  const identity = config.serverInfo?.user?.identity ?? config.configurable?.langgraph_auth_user_id;
  return typeof identity === "string" && identity ? identity : ANONYMOUS_CALLER;
}

/** Refuse a caller-named session unless the operator allows them. */
export function checkCallerSession(ctx: AgentContext, deployment: Deployment): void {
  if (ctx.sessionId && !deployment.callerSessions) {
    throw new InvalidContextError(
      "CALLER_SESSIONS_DISABLED",
      "sessionId",
      `Context field "sessionId" is not accepted by this deployment: each thread is its own breaker session. The operator can allow caller sessions with ${CALLER_SESSIONS_VAR}=true.`,
    );
  }
}

/**
 * The breaker session of a step. Three namespaces that cannot reach one
 * another: `thread:<id>` by default; `caller:<user>:<name>` when the context
 * names a session (and the operator allows it), scoped to the authenticated
 * user so no tenant reaches another's, nor a thread's; `run:<uuid>` for a run
 * without a thread (kept in state for the run's later steps).
 */
export function sessionIdFor(ctx: AgentContext, config: LangGraphRunnableConfig, stateSessionId: string, deployment: Deployment): string {
  if (ctx.sessionId) {
    checkCallerSession(ctx, deployment);
    return `caller:${encodeURIComponent(callerOf(config))}:${ctx.sessionId}`;
  }
  const thread = config.configurable?.thread_id;
  if (typeof thread === "string" && thread) return `thread:${thread}`;
  return stateSessionId || `run:${randomUUID()}`;
}
