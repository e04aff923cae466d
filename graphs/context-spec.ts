import { defaultModelName } from "../nodes/model/load-chat-model.js";
import { ON_TRIP_CHOICES } from "../nodes/route.js";
import { choiceField, limitField, textField } from "./context-field.js";
import { SYSTEM_PROMPT } from "./prompts.js";

/**
 * The run context, declared once: every field a run may set, how it is read,
 * what an empty one becomes and, for a limit, how it bounds the deployment's
 * policy. The doc comment of each entry is its description: the LangGraph
 * server reads it from this source for Studio's context form, and
 * `npm run context-table` writes it into the README's configuration table.
 * The Annotation.Root, `parseContext`, the limits and the operator's
 * BREAKER_* variables all derive from this object: a new knob is one entry.
 */
export const CONTEXT_SPEC = {
  /** "<provider>:<model>" (any provider LangChain's initChatModel knows, its package installed) or "scripted:<scenario>"; empty picks OpenAI when OPENAI_API_KEY is set. */
  model: textField({
    fill: defaultModelName,
    whenEmpty: "`openai:gpt-4o-mini` with `OPENAI_API_KEY`, else `scripted:stutter`",
    runMaySet: "`<provider>:<model>` for any provider LangChain's `initChatModel` knows, once its package is installed (`openai:` ships with the template: ChatOpenAI, and `OPENAI_BASE_URL` points it at any OpenAI-compatible server), or `scripted:<scenario>` (see `demo/scenarios.ts`); see [Swap the model](#swap-the-model)",
  }),
  /** System prompt for the agent. */
  systemPrompt: textField({ fill: () => SYSTEM_PROMPT, whenEmpty: "`graphs/prompts.ts`", runMaySet: "any text" }),
  /** Breaker session shared by several threads; accepted only when the operator sets BREAKER_CALLER_SESSIONS=true. */
  sessionId: textField({
    fill: () => "",
    whenEmpty: "the thread (`thread:<id>`)",
    runMaySet:
      "a name, only when the operator sets `BREAKER_CALLER_SESSIONS=true`; it becomes `caller:<user>:<name>`, so it reaches neither a thread's session nor another user's",
  }),
  /** What a trip does: "end" (default) answers and ends the run; "ask" pauses it with interrupt() for a person to stop or continue. */
  onTrip: choiceField([...ON_TRIP_CHOICES], { fill: () => "end", whenEmpty: "`end`" }),
  /** Identical calls allowed per run while they bring nothing new; the next one opens the circuit. At most the deployment's. */
  maxIdenticalCalls: limitField({
    min: 1,
    bound: "ceiling",
    policyField: "detectors.identical_repeat.block (minus one)",
    // The block level counts the refused call too.
    inPolicy: (p) => p.detectors.identical_repeat.block - 1,
  }),
  /** How many calls before a limit the model is warned (HALF_OPEN). Moves warnings only. */
  halfOpenMargin: limitField({ min: 0, bound: "warning", policyField: "the warn levels", whenEmpty: "each detector's own warn level" }),
  /** Length of the sliding window for maxCallsPerWindow, in seconds. At least the deployment's. */
  windowSeconds: limitField({ min: 1, bound: "floor", policyField: "detectors.call_rate.windowSeconds", inPolicy: (p) => p.detectors.call_rate.windowSeconds }),
  /** Tool calls allowed per session within windowSeconds. At most the deployment's. */
  maxCallsPerWindow: limitField({ min: 1, bound: "ceiling", policyField: "detectors.call_rate.block", inPolicy: (p) => p.detectors.call_rate.block }),
  /** Tool calls allowed per run (one user turn). At most the deployment's. */
  maxCallsPerRun: limitField({ min: 1, bound: "ceiling", policyField: "detectors.run_calls.block", inPolicy: (p) => p.detectors.run_calls.block }),
  /**
   * Seconds the circuit stays OPEN after a trip, refusing every call of the run (a "continue" message keeps the run);
   * then the next call runs with a clean loop window, no trial call first. A new user message starts a fresh circuit anyway.
   * At least the deployment's.
   */
  openSeconds: limitField({ min: 1, bound: "floor", policyField: "openSeconds", inPolicy: (p) => p.openSeconds }),
};

/** The name of a context field. */
export type ContextFieldName = keyof typeof CONTEXT_SPEC;
