/** One scripted model turn: tool calls to request, or a final answer. */
export interface ScriptedTurn {
  calls?: { name: string; args: Record<string, unknown> }[];
  content?: string;
}

/** A scripted behaviour of the model, replayed turn by turn within one user turn. */
export interface Scenario {
  name: string;
  /** What the scenario shows, for the demo and Studio. */
  description: string;
  /** A user message that fits the scenario. */
  prompt: string;
  /** Whether the scenario is a runaway the breaker must stop. */
  loops: boolean;
  turns: ScriptedTurn[];
  /** When the turns run out: repeat them from this index forever (a runaway model). */
  repeatFrom?: number;
  /** The answer once the turns run out without repeating. */
  answer?: string;
  /** Input tokens reported per model turn (defaults to an estimate from the prompt). */
  inputTokensPerTurn?: number;
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ calls: [{ name, args }] });

const SCENARIO_LIST: Scenario[] = [
  {
    name: "loop",
    description: "The same failing SQL query, again and again.",
    prompt: "How many invoices are overdue?",
    loops: true,
    turns: [call("query_database", { sql: "SELECT * FROM overdue_invoices" })],
    repeatFrom: 0,
  },
  {
    name: "stutter",
    description: "A CRM lookup retried with cosmetic variants of one company name.",
    prompt: "What is the account owner for Acme Corporation?",
    loops: true,
    turns: [
      call("query_crm", { company_name: "Acme Corporation" }),
      call("query_crm", { company_name: "acme corporation" }),
      call("query_crm", { company_name: "ACME Corporation." }),
      call("query_crm", { company_name: "Acme Corporation Inc" }),
      call("query_crm", { company_name: "Acme  Corporation" }),
      call("query_crm", { company_name: "The Acme Corporation" }),
    ],
    repeatFrom: 0,
  },
  {
    name: "kb_stutter",
    description: "A knowledge-base search paged through offsets of a query with no hits.",
    prompt: "Find our refund policy for enterprise customers.",
    loops: true,
    turns: [0, 5, 10, 15, 20, 25].map((offset) =>
      call("kb_search", { query: "enterprise refund policy exceptions", offset, limit: 5 }),
    ),
    repeatFrom: 0,
  },
  {
    name: "ping_pong",
    description: "An index search and a file read that keep handing the same unreadable path back and forth.",
    prompt: "Summarize the Q3 report.",
    loops: true,
    turns: [
      call("search_file_index", { pattern: "q3 summary" }),
      call("read_file_contents", { path: "repo://reports/q3-summary.md#L1-L40" }),
    ],
    repeatFrom: 0,
  },
  {
    name: "polling_stuck",
    description: "Long-polling an export job every 30 s whose status never moves, past the poll's time budget.",
    prompt: "Wait for the nightly export and give me the link.",
    loops: true,
    turns: [call("check_job_status", { job_id: "export-stuck", wait_seconds: 30 })],
    repeatFrom: 0,
  },
  {
    name: "email_repeat",
    description: "Sending the same e-mail twice: a side effect must not repeat.",
    prompt: "Tell ops that the export finished.",
    loops: true,
    turns: [call("send_email", { to: "ops@example.com", subject: "Export finished", body: "The nightly export is done." })],
    repeatFrom: 0,
  },
  {
    name: "clean",
    description: "A CRM lookup, then the account's financials, then an answer.",
    prompt: "What was Acme Corp's revenue last year?",
    loops: false,
    turns: [
      call("query_crm", { company_name: "Acme Corp" }),
      call("get_financials", { account_id: "acc_001" }),
    ],
    answer: "Acme Corp (acc_001) is in the CRM; its financial records are above. Summary: see get_financials.",
  },
  {
    name: "pagination",
    description: "Paging through a customer's orders: every page brings new records.",
    prompt: "List every order of customer cust_001.",
    loops: false,
    turns: [1, 2, 3, 4].map((page) => call("list_orders", { customer_id: "cust_001", page, page_size: 10 })),
    answer: "All orders of cust_001 are listed above, four pages in all.",
  },
  {
    name: "polling",
    description: "Polling an export job whose status moves until it is done.",
    prompt: "Wait for export-7 and give me the link.",
    loops: false,
    turns: [1, 2, 3, 4].map(() => call("check_job_status", { job_id: "export-7" })),
    answer: "Export export-7 is done; the download link is in the last status.",
  },
];

/** Every scripted scenario by name. */
export const SCENARIOS: ReadonlyMap<string, Scenario> = new Map(SCENARIO_LIST.map((s) => [s.name, s]));

/** The scripted turn for the `index`-th model call of a user turn. */
export function turnAt(scenario: Scenario, index: number): ScriptedTurn {
  const { turns, repeatFrom } = scenario;
  if (index < turns.length) return turns[index]!;
  if (repeatFrom !== undefined && repeatFrom < turns.length) {
    const cycle = turns.length - repeatFrom;
    return turns[repeatFrom + ((index - turns.length) % cycle)]!;
  }
  return { content: scenario.answer ?? "Done." };
}
