import Table from "cli-table3";
import pc from "picocolors";
import type { BreakerStore } from "../stores/store.js";
import type { CircuitState, SessionSnapshot } from "../types.js";

/** One line of `list`: what an operator scans for. */
export interface SessionSummary {
  sessionId: string;
  state: CircuitState;
  totalCalls: number;
  /** Epoch ms of the newest call in the window (0 when none). */
  lastCallAt: number;
}

/** What a reset did: whether the session was there, and how many of its calls were forgotten. */
export interface ResetReport {
  sessionId: string;
  existed: boolean;
  forgottenCalls: number;
}

/** Forget a session and say what was forgotten (the CLI's `reset` and the server's reset route). */
export async function resetSession(store: BreakerStore, sessionId: string): Promise<ResetReport> {
  const before = await store.snapshot(sessionId);
  await store.reset(sessionId);
  return { sessionId, existed: before !== null, forgottenCalls: before?.totalCalls ?? 0 };
}

/** The summary of a snapshot. */
export function summarize(snapshot: SessionSnapshot): SessionSummary {
  const { sessionId, circuit, totalCalls, window } = snapshot;
  return { sessionId, state: circuit.state, totalCalls, lastCallAt: window.at(-1)?.at ?? 0 };
}

// Session ids and arguments come from callers: escape control characters and cut long ones.
function printable(text: string, max = 60): string {
  const safe = text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
  return safe.length <= max ? safe : `${safe.slice(0, max - 1)}…`;
}

function colorState(state: CircuitState): string {
  return state === "OPEN" ? pc.red(state) : state === "HALF_OPEN" ? pc.yellow(state) : pc.green(state);
}

const time = (ms: number): string => (ms ? new Date(ms).toISOString() : "-");

function table(head: string[]): Table.Table {
  return new Table({ head: head.map((h) => pc.bold(h)), style: { head: [], border: [] } });
}

/** `list` as a table, most recently active first. */
export function listReport(sessions: readonly SessionSummary[]): string {
  if (sessions.length === 0) return "No active sessions.";
  const rows = table(["session", "state", "calls", "last call"]);
  for (const s of sessions) rows.push([printable(s.sessionId), colorState(s.state), String(s.totalCalls), time(s.lastCallAt)]);
  return `${rows.toString()}\n${sessions.length} active session${sessions.length === 1 ? "" : "s"}.`;
}

/** `inspect`: the circuit, the last verdict with its findings, spend, and the window. */
export function inspectReport(snapshot: SessionSnapshot, now = Date.now()): string {
  const { circuit, usage, window } = snapshot;
  const until = circuit.state === "OPEN" ? ` until ${time(circuit.openUntil)}${circuit.openUntil <= now ? " (expired: the next call closes it)" : ""}` : "";
  const lines = [
    `${pc.bold("Session")}  ${printable(snapshot.sessionId, 200)}`,
    `${pc.bold("State")}    ${colorState(circuit.state)}${until}`,
    `${pc.bold("Run")}      ${printable(circuit.run)}: ${snapshot.runCalls} calls in this run, ${snapshot.totalCalls} in the session`,
    `${pc.bold("Usage")}    ${usage.inputTokens} input + ${usage.outputTokens} output tokens, $${(usage.costMicros / 1e6).toFixed(6)}`,
    `${pc.bold("Last verdict")} ${circuit.asOf ? `${colorState(circuit.state)} at step ${circuit.asOf}` : "none yet"}`,
    ...circuit.findings.map(
      (f) => `  ${f.severity === "block" ? pc.red("block") : pc.yellow("warn")} ${f.detector}: ${f.message} (steps ${f.steps.join(", ")})`,
    ),
  ];
  const rows = table(["step", "at", "run", "tool", "args", "outcome"]);
  for (const c of window) {
    rows.push([String(c.step), time(c.at), printable(c.run, 16), printable(c.tool, 24), printable(c.args, 48), c.outcome?.kind ?? pc.dim("none")]);
  }
  lines.push(`${pc.bold("Window")}   last ${window.length} of ${snapshot.totalCalls} calls`, rows.toString());
  return lines.join("\n");
}
