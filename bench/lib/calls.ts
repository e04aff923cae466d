import {
  canonicalArgs,
  hashText,
  parsePolicy,
  type CallRecord,
  type NewCall,
  type Policy,
  type ToolCallRequest,
  type ToolOutcome,
} from "../../breaker/index.js";
import { clipCanonical } from "../../breaker/canonical.js";

/** One call of a synthetic session: the request the agent makes and the outcome its tool reports. */
export interface BenchCall {
  request: ToolCallRequest;
  outcome: ToolOutcome;
}

const TOPICS = ["refund policy", "sso setup", "invoice disputes", "data retention", "api rate limits", "gdpr export"];

// A mix of the example tools' shapes. Every call names its own entity (a
// number the similarity check reads as a different request), so a healthy
// session never looks stuck and the measurement stays on the normal path.
const SHAPES: ((n: number) => { name: string; args: Record<string, unknown> })[] = [
  (n) => ({ name: "query_crm", args: { company_name: `Northwind Traders ${n}` } }),
  (n) => ({ name: "get_financials", args: { account_id: `acc_${n}`, year: 2020 + (n % 5) } }),
  (n) => ({ name: "kb_search", args: { query: `${TOPICS[n % TOPICS.length]} ${n}`, offset: 0, limit: 5 } }),
  (n) => ({ name: "list_orders", args: { customer_id: `cust_${n}`, page: 1 + (n % 3), page_size: 10 } }),
  (n) => ({ name: "check_job_status", args: { job_id: `export-${n}` } }),
  (n) => ({ name: "query_database", args: { sql: `SELECT id, total FROM invoices WHERE customer_id = ${n} LIMIT 20` } }),
  (n) => ({ name: "read_file_contents", args: { path: `repo://reports/q${1 + (n % 4)}-summary-${n}.md#L1-L40` } }),
];

/** The n-th call (0-based) of a synthetic healthy session: mixed tools, arguments and outcomes (ok, empty, the odd error). */
export function benchCall(session: string, n: number, run = "run-1"): BenchCall {
  const { name, args } = SHAPES[n % SHAPES.length]!(n);
  // Empty and error answers fall on every tool in turn (5 and 11 are prime to the 7 shapes), never on one tool in a row.
  const kind = n % 11 === 5 ? "error" : n % 5 === 3 ? "empty" : "ok";
  return {
    request: { id: `${session}-c${n}`, name, args, run },
    outcome: { kind, fingerprint: hashText(`${session}:${n}:${kind}`) },
  };
}

/** A request as the breaker hands it to its store (canonical, clipped arguments and their hash). */
export function newCallOf(request: ToolCallRequest): NewCall {
  const canonical = canonicalArgs(request.args);
  return {
    id: request.id,
    tool: request.name,
    args: clipCanonical(canonical),
    argsHash: hashText(canonical),
    run: request.run ?? "default",
  };
}

/** The record a store would hold for a call (step and clock given), as decide() reads it. */
export function recordOf(call: BenchCall, step: number, at: number, withOutcome: boolean): CallRecord {
  return { ...newCallOf(call.request), step, at, ...(withOutcome ? { outcome: call.outcome } : {}) };
}

const UNREACHABLE = 1_000_000_000;

/**
 * The default policy with the two volume limits lifted: a benchmark drives
 * thousands of calls a second through one session, which call_rate and
 * run_calls would rightly stop. They are lifted per tool (a global call_rate
 * limit cannot exceed the window), so both detectors still do their work on
 * every check but never fire; every loop detector keeps its defaults.
 */
export function benchPolicy(windowSize = 50, ttlSeconds = 3_600): Policy {
  const lifted = { call_rate: { warn: UNREACHABLE, block: UNREACHABLE }, run_calls: { warn: UNREACHABLE, block: UNREACHABLE } };
  const tools = SHAPES.map((shape) => shape(0).name);
  return parsePolicy({
    windowSize,
    ttlSeconds,
    detectors: { call_rate: { warn: Math.min(24, windowSize), block: Math.min(30, windowSize) } },
    tools: Object.fromEntries(tools.map((tool) => [tool, { detectors: lifted }])),
  });
}
