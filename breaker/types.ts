import type { RawOutcome } from "./outcome.js";

/** Circuit states: CLOSED runs calls, HALF_OPEN runs them with a warning, OPEN refuses them. */
export type CircuitState = "CLOSED" | "HALF_OPEN" | "OPEN";

/** How a tool call ended, as far as loop detection cares. */
export type OutcomeKind = "ok" | "empty" | "error";

/** What a tool does, so the policy can treat a poller unlike an e-mail sender. */
export type ToolNature = "read_only" | "side_effecting" | "pagination" | "polling";

/** A finding's weight: `warn` moves the circuit to HALF_OPEN, `block` to OPEN. */
export type Severity = "warn" | "block";

/** Token usage of the model turn that requested a call. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Model name, looked up in the policy's price table. */
  model?: string;
}

/** A tool call the breaker is asked to admit. */
export interface ToolCallRequest {
  /** The tool_call_id: checks are idempotent on it. */
  id: string;
  name: string;
  args: unknown;
  /**
   * The run (one user turn) the call belongs to. A new value starts a fresh
   * window for the loop detectors; session-wide budgets carry over.
   */
  run?: string;
  /** Usage of the model turn that asked for this call; counted once per call id. */
  usage?: TokenUsage;
}

/** The result of a tool call, reported back through `complete`. */
export interface ToolOutcome {
  kind: OutcomeKind;
  /** Stable hash of the output with volatile values (request ids, timestamps, fresh ids) masked; errors hash their message. */
  fingerprint: string;
  /** An error a retry may cure: a rate limit, a 5xx, a timeout, a dropped connection. */
  transient?: boolean;
  /** The output reports work not finished yet (a job still running): a poll, judged by time. */
  inProgress?: boolean;
  /**
   * For work in progress: hashes of the handles it names (a session, a job,
   * a build: the last token of each id), so a later call that asks about one
   * of them ("write_stdin({session_id: 3})") is a poll of that work.
   */
  handles?: string[];
  /** Hash of the generated ids the fingerprint masked: a new one each call means a new thing was made. */
  ids?: string;
  /**
   * For an error that names what it was asked about: the hash of its text with
   * every word of the call's arguments masked, so "no such table: payments"
   * and "no such table: refunds" share it (the same miss, guessed twice).
   */
  shape?: string;
  /**
   * For an error that names the tool it answers for: the hash of its shape
   * with that name masked, so "Unknown tool: Miro" and "Unknown tool: Jira"
   * share it (the harness refusing whatever tool is asked for).
   */
  aboutTool?: string;
  /**
   * For a failure whose text states its cause (`SyntaxError: ...`,
   * `error[E0405]: ...`), the hash of that line: commands written
   * differently that fail for one cause share it.
   */
  cause?: string;
  /** The harness refused the call as a repeat of one it already ran: it has judged the repeat itself. */
  repeatRefused?: boolean;
  /**
   * The call never ran: the harness cancelled it because another call of its
   * batch failed, or the run was interrupted. It is no failure of its own.
   */
  cancelled?: boolean;
  /**
   * The output is a browser page snapshot (`breaker/page-snapshot.ts`): calls
   * naming elements by references the page renumbers, that get the same page
   * back, are one request.
   */
  page?: boolean;
  /**
   * The result says the action changed what it acts on (`stateProgressed:
   * true`, `pageChanged: true`): it brought something new, however its words repeat.
   */
  changed?: boolean;
}

/** One recorded call in a session's window, as the store keeps it and the detectors read it. */
export interface CallRecord {
  /** 1-based step index of the call in its session. */
  step: number;
  id: string;
  tool: string;
  /** Canonical JSON of the arguments, capped in length. */
  args: string;
  /** Hash of the full canonical arguments. */
  argsHash: string;
  /** Store clock (ms) when the call was recorded. */
  at: number;
  run: string;
  /** Missing while the call is running (or was refused). */
  outcome?: ToolOutcome;
  /**
   * Spend of the model turn this call carried (counted once, on the call it
   * rode on), so a replay can tell the session totals as of any step.
   */
  usage?: UsageTotals;
}

/** Session-wide spend, summed by the store. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  /** Cost in micro-dollars, so the store only adds integers. */
  costMicros: number;
}

/** What a finding is about: the current run's loop, or the whole session's budget. */
export type FindingScope = "run" | "session";

/** One reason the breaker found, with the evidence a person can check. */
export interface Finding {
  detector: string;
  /** "run" findings clear with the next user message; "session" ones (budgets) do not. */
  scope: FindingScope;
  severity: Severity;
  /** A sentence a person understands. */
  message: string;
  /** Step indices of the evidence, the candidate call included. */
  steps: number[];
  /** The measured count (repeats, calls, tokens...) the levels were compared with. */
  count?: number;
  /** The block level that count was compared with, so a report can say how close it came. */
  limit?: number;
}

/** The breaker's answer for one call. */
export interface Verdict {
  callId: string;
  tool: string;
  /** Step index of this call in the session (0 when the store could not record it). */
  step: number;
  state: CircuitState;
  allowed: boolean;
  findings: Finding[];
  /** For HALF_OPEN: what to tell the model alongside the tool result. */
  advisory?: string;
  /** Set when the store could not serve the check and a fail mode answered instead (Redis down). */
  degraded?: { reason: string };
}

/** One outcome of a batch, for `completeBatch`. */
export interface CallCompletion {
  callId: string;
  outcome: ToolOutcome | RawOutcome;
}

/** The persisted state of a session's circuit. */
export interface CircuitRecord {
  state: CircuitState;
  /** Epoch ms at which an OPEN circuit may close again (0 when not OPEN). */
  openUntil: number;
  /** The run whose calls the loop detectors look at. */
  run: string;
  /** Loop detectors ignore steps up to this one (moved forward when OPEN expires). */
  since: number;
  /** Findings of the last transition, kept so `inspect` can say why. */
  findings: Finding[];
  /** Step of the verdict that set this state; older transitions never overwrite it. */
  asOf: number;
}

/** Everything the breaker knows about one session. */
export interface SessionSnapshot {
  sessionId: string;
  circuit: CircuitRecord;
  window: CallRecord[];
  usage: UsageTotals;
  /** Calls recorded in the session since it began. */
  totalCalls: number;
  /** Calls recorded in the current run. */
  runCalls: number;
}
