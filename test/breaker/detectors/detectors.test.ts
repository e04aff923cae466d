import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../../breaker/outcome.js";
import { DEFAULT_POLICY } from "../../../breaker/policy.js";
import { decideOn, findingOf, severity, times, type CallSpec } from "../support/window.js";

const crm = (name: string, out?: string): CallSpec => ({ tool: "query_crm", args: { company_name: name }, ...(out ? { out } : {}) });
const kb = (query: string, offset: number, out?: string): CallSpec => ({ tool: "kb_search", args: { query, offset, limit: 5 }, ...(out ? { out } : {}) });
const poll = (out?: string): CallSpec => ({ tool: "check_job_status", args: { job_id: "j1" }, ...(out ? { out } : {}) });
const polling = { tools: { check_job_status: { nature: "polling" as const } } };


describe("identical_repeat", () => {
  it("counts identical calls whose results are not known yet: warns at the second, blocks the third", () => {
    const q = { tool: "query_database", args: { sql: "SELECT 1" } };
    expect(severity(decideOn(times(2, q)), "identical_repeat")).toBe("warn");
    const decision = decideOn(times(3, q));
    expect(decision.state).toBe("OPEN");
    expect(findingOf(decision, "identical_repeat")).toMatchObject({ severity: "block", steps: [1, 2, 3], count: 3, limit: 3 });
  });

  it("counts finished repeats that brought nothing new with the running ones, never the first answer", () => {
    const q = { tool: "query_database", args: { sql: "SELECT 1" }, out: "rows-A" };
    const third = decideOn([...times(2, q), { tool: q.tool, args: q.args }]);
    expect(severity(third, "identical_repeat")).toBe("warn");
    expect(severity(third, "no_progress")).toBe("warn");
    const fourth = decideOn([...times(3, q), { tool: q.tool, args: q.args }]);
    expect(findingOf(fourth, "identical_repeat")).toMatchObject({ severity: "block", steps: [2, 3, 4] });
    expect(findingOf(fourth, "no_progress")).toMatchObject({ severity: "block", steps: [2, 3, 4] });
    // One repeat still running between finished ones is no sign of progress either.
    expect(severity(decideOn([q, { tool: q.tool, args: q.args }, q, { tool: q.tool, args: q.args }]), "identical_repeat")).toBe("block");
  });

  it("stops counting running duplicates once the agent does something new", () => {
    const q = { tool: "query_database", args: { sql: "SELECT 1" } };
    expect(severity(decideOn([q, q, { tool: "read_file", args: { path: "schema.sql" }, out: "ddl" }, q]), "identical_repeat")).toBe("none");
  });

  it("reads a check that printed nothing, then failed once the agent wrote files, as news", () => {
    // Recorded shape (a Claude Code session): `tsc --noEmit` silent, three files written, then a type error.
    const tsc = (spec: Partial<CallSpec>): CallSpec => ({ tool: "Bash", args: { command: "npx tsc --noEmit 2>&1" }, ...spec });
    const write = (file: string): CallSpec => ({ tool: "Write", args: { file_path: file, content: `export const x = "${file}";` }, result: `File created successfully at: ${file}` });
    const failed = "Exit code 2\nsrc/a.ts(3,5): error TS2304: Cannot find name 'Foo'.";
    expect(severity(decideOn([tsc({ result: "" }), write("src/a.ts"), write("src/b.ts"), tsc({ error: failed }), tsc({})]), "identical_repeat")).not.toBe("block");
    // With nothing done in between, silence then a failure is the same check asked again.
    expect(severity(decideOn([tsc({ result: "" }), tsc({ error: failed }), tsc({})]), "identical_repeat")).toBe("block");
  });

  it("counts no repeat from before the request brought news in other words (another timeout, which then ran)", () => {
    // Recorded shape (a computer-use session): a script timed out twice at 15 s, ran at 10 s, then is run at 15 s again.
    const run = (timeout: number, spec: Partial<CallSpec>): CallSpec => ({ tool: "sandbox_run", args: { command: "bash /tmp/extract.sh", timeout }, ...spec });
    const timedOut = { error: "command timed out after 15 seconds" };
    const ran = run(10, { result: "exit 0\nextracted 42 rows" });
    expect(severity(decideOn([run(15, timedOut), run(15, timedOut), ran, run(15, {})]), "identical_repeat")).not.toBe("block");
    // The same three calls without that news between them are the same failure asked for again.
    expect(severity(decideOn([run(15, { error: "bash: /tmp/extract.sh: Permission denied" }), run(15, { error: "bash: /tmp/extract.sh: Permission denied" }), run(15, {})]), "identical_repeat")).toBe("block");
  });

  it("tells long arguments apart past the length the store keeps of them", () => {
    // Recorded shape (ChatDev): three rewrites of one long file that differ only near its end.
    const head = Array.from({ length: 120 }, (_, i) => `# setup line ${i}`).join("\n");
    const write = (tail: string, spec: Partial<CallSpec> = {}): CallSpec => ({ tool: "modify_code", args: { file: "main.py", code: `${head}\n${tail}` }, ...spec });
    const tails = ["import cv2", "try:\n    import cv2\nexcept ImportError:\n    cv2 = None", "from PIL import Image"];
    expect(severity(decideOn(tails.map((t) => write(t))), "identical_repeat")).toBe("none");
    expect(severity(decideOn(tails.map((t) => write(t))), "semantic_stutter")).toBe("none");
    // The same long write three times is one request still.
    expect(severity(decideOn([write(tails[0]!), write(tails[0]!), write(tails[0]!)]), "identical_repeat")).toBe("block");
  });

  it("reads calls that differ only in narration (a task_progress note) as identical", () => {
    const read = (note: string): CallSpec => ({ tool: "read_file", args: { path: "src/index.ts", task_progress: note } });
    expect(severity(decideOn(["step 0 of 5", "step 1 of 5", "step 2 of 5", "step 3 of 5"].map(read)), "identical_repeat")).toBe("block");
  });

  it("reads a shell command's caption (Claude Code's Bash `description`) as commentary, never a fixed tool's description", () => {
    // Recorded shape (a Claude Code session): `npm run build` four times, reworded captions, one TypeError each time.
    const build = (description: string): CallSpec => ({
      tool: "Bash",
      args: { command: "npm run build", description },
      error: "> Build error occurred\n[TypeError: generate is not a function]",
    });
    const captions = ["Build the app to check for errors", "Build the TODO app from correct directory", "Build from correct directory path"];
    expect(severity(decideOn([...captions.map(build), { tool: "Bash", args: { command: "npm run build", description: "Build once more" } }]), "identical_repeat")).toBe("block");
    // Other commands under one caption are other requests; so are tickets that differ in their description.
    const check = (command: string): CallSpec => ({ tool: "Bash", args: { command, description: "Run the checks" }, result: `${command}: ok` });
    expect(decideOn(["npm run lint", "npm run build", "npm test", "npm run e2e"].map(check)).state).toBe("CLOSED");
    const ticket = (description: string): CallSpec => ({ tool: "create_ticket", args: { title: "Checkout fails", description }, result: { id: description.length } });
    expect(severity(decideOn(["Safari users cannot pay", "Card form rejects Amex", "Coupon field crashes the page"].map(ticket)), "identical_repeat")).toBe("none");
  });

  it("counts rewordings and identifier variants still running as the same call, never another entity or number", () => {
    // Recorded shape (a Sentry trace): one question reworded three times, the results not known.
    const ask = (query: string): CallSpec => ({ tool: "searchDocumentation", args: { query } });
    expect(severity(decideOn(["how do I configure auth", "configure auth", "auth configuration"].map(ask)), "identical_repeat")).toBe("block");
    expect(severity(decideOn(["configure auth", "configure billing", "configure webhooks"].map(ask)), "identical_repeat")).toBe("none");
    const order = (order_id: string): CallSpec => ({ tool: "get_order", args: { order_id } });
    expect(severity(decideOn(["ORD-42", "ord_42", "ORD 0042"].map(order)), "identical_repeat")).toBe("block");
    expect(severity(decideOn(["ORD-42", "ORD-43", "ORD-44"].map(order)), "identical_repeat")).toBe("none");
  });

  it("restarts the count when the result changes (a stream bringing new chunks)", () => {
    const specs = ["chunk-1", "chunk-2", "chunk-3", "chunk-4", "chunk-5"].map((out) => ({ tool: "tail_logs", args: { job: "d1" }, out }));
    expect(decideOn([...specs, { tool: "tail_logs", args: { job: "d1" } }]).state).toBe("CLOSED");
  });

  it("blocks the second identical call of a side-effecting tool, even after success", () => {
    const email = { tool: "send_email", args: { to: "a@example.com", subject: "Hi", body: "Hello" } };
    const policy = { tools: { send_email: { nature: "side_effecting" as const } } };
    const decision = decideOn([{ ...email, out: "sent-1" }, email], { policy });
    expect(findingOf(decision, "identical_repeat")).toMatchObject({ severity: "block", steps: [1, 2] });
    expect(decideOn([{ ...email, out: "sent-1" }, email], { policy: { inferSideEffects: false } }).state).toBe("CLOSED");
  });

  it("reads a side effect from a tool named for an act on the outside world when none is declared", () => {
    // Recorded shapes: OpenJarvis's channel_send re-sent by a retried turn, Qwen-Agent's log_out called twice.
    const send = { tool: "channel_send", args: { channel: "telegram:ops", text: "/var is at 93%" } };
    expect(findingOf(decideOn([{ ...send, out: '{"ok":true,"message_id":48211}' }, send]), "identical_repeat")).toMatchObject({ severity: "block" });
    expect(decideOn([{ tool: "log_out", args: {}, out: "bye" }, { tool: "log_out", args: {} }]).state).toBe("OPEN");
    expect(decideOn([{ tool: "issueRefund", args: { order: "A1" }, out: "refunded" }, { tool: "issueRefund", args: { order: "A1" } }]).state).toBe("OPEN");
    expect(decideOn([{ tool: "send_to_slack", args: { text: "deploy done" }, out: "ok" }, { tool: "send_to_slack", args: { text: "deploy done" } }]).state).toBe("OPEN");
    // Reads and preparations of such things are not acts: the second identical read is allowed.
    for (const tool of ["get_order", "list_posts", "draft_email", "search_emails", "get_booking_details"]) {
      expect(decideOn([{ tool, args: { id: "A1" }, out: "found" }, { tool, args: { id: "A1" } }]).state).toBe("CLOSED");
    }
  });

  it("counts only the side effects that went through: a failed send is retried by the retry levels", () => {
    const email = { tool: "send_email", args: { to: "legal@partner.example", subject: "Signed contract" } };
    const dropped = { ...email, error: "SMTPServerDisconnected: Connection unexpectedly closed" };
    expect(decideOn([dropped, dropped, email]).state).toBe("CLOSED");
    // A permanent failure repeated identically is still no progress.
    const refused = { ...email, error: "550 mailbox unavailable: recipient rejected" };
    expect(findingOf(decideOn([refused, refused, email]), "no_progress")).toMatchObject({ severity: "block" });
  });

  it("only looks at the current run", () => {
    const q = { tool: "q", args: { a: 1 }, out: "same" };
    expect(decideOn([{ ...q, run: "r1" }, { ...q, run: "r1" }, { ...q, run: "r1" }, { ...q, run: "r2" }]).state).toBe("CLOSED");
  });

  it("leaves a retried transient failure to the retry levels: only running duplicates count", () => {
    const fetch = { tool: "fetch_url", args: { url: "https://api.example.com/v1/rates" }, error: "HTTP 503 Service Unavailable" };
    expect(severity(decideOn([...times(4, fetch), { tool: fetch.tool, args: fetch.args }]), "identical_repeat")).toBe("none");
  });
});

describe("no_progress", () => {
  it("judges a request asked again after the agent changed something afresh, and counts it when only reads came between", () => {
    // A supervisor hand-back that failed once, was retried, then asked for again after the report was written.
    const handBack = (result?: string): CallSpec => ({ tool: "transfer_back_to_supervisor", args: {}, ...(result ? { result } : {}) });
    const write: CallSpec = { tool: "write_file", args: { path: "report.md", content: "DC01 beaconing to 203.0.113.9" }, result: "Wrote 31 bytes to report.md" };
    const read = (path: string): CallSpec => ({ tool: "read_file", args: { path }, result: `contents of ${path}` });
    const earlier = [handBack("Transferred back to supervisor"), { tool: "transfer_to_reporter", args: {}, result: "Transferred to reporter" }];
    const again = [handBack("Transferred back to supervisor"), handBack("Transferred back to supervisor"), handBack("Transferred back to supervisor")];
    expect(decideOn([...earlier, ...again, write, handBack()]).state).not.toBe("OPEN");
    expect(severity(decideOn([...earlier, ...again, read("notes.md"), handBack()]), "no_progress")).toBe("block");
  });

  it("blocks a third identical call after two misses, whatever the error text", () => {
    const miss = { tool: "get_financials", args: { company_id: "acc_004", year: 2024 }, out: "error" };
    expect(severity(decideOn([miss, { ...miss, out: undefined }]), "no_progress")).toBe("warn");
    const decision = decideOn([miss, miss, { ...miss, out: undefined }]);
    expect(findingOf(decision, "no_progress")).toMatchObject({ severity: "block", steps: [1, 2, 3] });
    expect(findingOf(decision, "no_progress")!.message).toMatch(/get_financials has brought nothing new twice in a row with these arguments \(2 errors\)/);
  });

  it("reads well at every count: once, twice, 3 times", () => {
    const miss = { tool: "lookup", args: { id: 7 }, out: "empty" };
    expect(findingOf(decideOn([miss, { tool: "lookup", args: { id: 7 } }]), "no_progress")!.message).toContain("nothing new once in a row");
    expect(findingOf(decideOn([miss, miss, { tool: "lookup", args: { id: 7 } }]), "no_progress")!.message).toContain("nothing new twice in a row");
  });

  it("spares a retry that succeeds: the success ends the streak", () => {
    const call = { tool: "get_financials", args: { company_id: "acc_002", year: 2024 } };
    expect(decideOn([{ ...call, out: "error" }, { ...call, out: "numbers" }, call]).state).toBe("CLOSED");
  });

  it("does not count pending calls (the identical-repeat count covers them)", () => {
    expect(severity(decideOn(times(3, { tool: "t", args: { a: 1 } })), "no_progress")).toBe("none");
  });

  it("leaves a declared polling tool's unchanged answers to stuck_poll's time budget", () => {
    const stuck = [...times(8, poll("running-40")), poll()];
    expect(severity(decideOn(stuck, { policy: polling }), "no_progress")).toBe("none");
    expect(severity(decideOn(stuck, { policy: polling }), "stuck_poll")).toBe("none");
    expect(decideOn(stuck).state).toBe("OPEN");
  });

  it("reads a reworded failure with nothing done in between as the same failure", () => {
    const read = { tool: "read_file", args: { path: "reports/q3#summary.md" } };
    const specs = [
      { ...read, error: 'ToolError: Cannot parse path "reports/q3#summary.md": it has a #fragment.' },
      { ...read, error: "ToolError: path rejected by the file service (code UNPARSEABLE_PATH)" },
      read,
    ];
    expect(findingOf(decideOn(specs), "no_progress")).toMatchObject({ severity: "block", steps: [1, 2, 3] });
  });

  it("spares a poll whose status moves", () => {
    const moving = ["queued", "running-10", "running-40", "running-80", "running-95"].map((s) => poll(s));
    expect(decideOn([...moving, poll()]).state).toBe("CLOSED");
  });
});

describe("polling inferred from behaviour", () => {
  it("treats an undeclared tool whose identical call changed result as polling", () => {
    const specs = [poll("queued"), poll("running-10"), poll("running-40"), poll("running-40"), poll("running-40"), poll()];
    expect(decideOn(specs).state).not.toBe("OPEN");
    expect(decideOn(specs, { policy: { inferPolling: false } }).state).toBe("OPEN");
  });

  it("does not infer polling from a result that never changed", () => {
    expect(decideOn([...times(3, poll("running")), poll()]).state).toBe("OPEN");
  });
});

describe("semantic_stutter", () => {
  it("catches the seed's kb_search stutter: same query, offset 0/5/10, all empty", () => {
    const decision = decideOn([kb("configure SAML", 0, "empty"), kb("configure SAML", 5, "empty"), kb("configure SAML", 10)]);
    expect(findingOf(decision, "semantic_stutter")).toMatchObject({ severity: "block", steps: [1, 2, 3] });
    expect(findingOf(decision, "semantic_stutter")!.message).toContain("offset: 0 → 5 → 10");
  });

  it("catches cosmetic rewrites of a name whose lookups keep missing", () => {
    const decision = decideOn([crm("Acme Corporation", "empty"), crm("ACME Corp.", "empty"), crm("acme corporation")]);
    expect(decision.state).toBe("OPEN");
    expect(findingOf(decision, "semantic_stutter")!.message).toMatch(/query_crm has asked for the same thing 3 times with only cosmetic changes \(company_name: "Acme Corporation" → "ACME Corp." → "acme corporation"\) and brought nothing new \(2 empty\)/);
  });

  it("counts variants that keep returning the same result as no progress", () => {
    const specs = [crm("Acme Corp", "acme-record"), crm("ACME Corp", "acme-record"), crm("Acme Corp.", "acme-record"), crm("Acme, Corp")];
    expect(severity(decideOn(specs), "semantic_stutter")).toBe("block");
  });

  it("spares pagination whose pages bring new records, and a miss followed by a hit", () => {
    expect(decideOn([kb("billing", 0, "page-1"), kb("billing", 5, "page-2"), kb("billing", 10)]).state).toBe("CLOSED");
    expect(severity(decideOn([crm("Acme Corporation", "empty"), crm("Acme Corp")]), "semantic_stutter")).toBe("warn");
    expect(decideOn([crm("Acme Corporation", "empty"), crm("Acme Corp", "acme"), crm("Acme Corp.")]).state).not.toBe("OPEN");
  });

  it("spares distinct lookups that each miss", () => {
    expect(decideOn([crm("Stark Industries", "empty"), crm("Wayne Enterprises", "empty"), crm("Initech")]).state).toBe("CLOSED");
  });

  it("blocks a near-duplicate side effect on the second call", () => {
    const policy = { tools: { send_email: { nature: "side_effecting" as const } } };
    const send = (subject: string, out?: string): CallSpec => ({ tool: "send_email", args: { to: "p@example.com", subject, body: "Signed." }, ...(out ? { out } : {}) });
    expect(severity(decideOn([send("Renewal signed", "sent-1"), send("Renewal: signed!")], { policy }), "semantic_stutter")).toBe("block");
    expect(decideOn([send("Renewal signed", "sent-1"), send("Invoice overdue")], { policy }).state).toBe("CLOSED");
  });
});

describe("cycle", () => {
  const index = (out = "entries"): CallSpec => ({ tool: "search_file_index", args: { pattern: "q3" }, out });
  const read = (out = "error"): CallSpec => ({ tool: "read_file_contents", args: { path: "reports/q3#s.md" }, out });
  const open = ({ out, ...spec }: CallSpec): CallSpec => spec;

  it("warns at A,B,A,B and blocks the fifth call of an A/B ping-pong", () => {
    expect(severity(decideOn([index(), read(), index(), open(read())]), "cycle")).toBe("warn");
    const decision = decideOn([index(), read(), index(), read(), open(index())]);
    expect(findingOf(decision, "cycle")).toMatchObject({ severity: "block", steps: [1, 2, 3, 4, 5], count: 3 });
    expect(findingOf(decision, "cycle")!.message).toContain("search_file_index → read_file_contents");
  });

  it("blocks a three-call cycle on its second round", () => {
    const kbCall = (out = "empty"): CallSpec => ({ tool: "kb_search", args: { query: "q3 churn" }, out });
    expect(severity(decideOn([index(), read(), kbCall(), index(), read(), open(kbCall())]), "cycle")).toBe("block");
  });

  it("blocks the fifth call of a ping-pong whose results are not known, and wants a third round of a longer cycle", () => {
    // Peers' ports and recordings without results: A, B, A, B, then A again (the peers flag that fifth call).
    const hand = (to: string): CallSpec => ({ tool: "handoff", args: { to } });
    expect(severity(decideOn([hand("verifier"), hand("analyzer"), hand("verifier"), hand("analyzer"), hand("verifier")]), "cycle")).toBe("block");
    expect(severity(decideOn([hand("verifier"), hand("analyzer"), hand("verifier"), hand("analyzer")]), "cycle")).toBe("warn");
    // Three calls going round with nothing known: the second round is not yet evidence enough.
    const step = (name: string): CallSpec => ({ tool: name, args: { task: "t-1" } });
    expect(severity(decideOn([step("plan"), step("act"), step("check"), step("plan"), step("act"), step("check")]), "cycle")).not.toBe("block");
  });

  it("blocks a six-call round of diagnostics repeated with the same results, and spares one whose results moved", () => {
    // An ops agent's round over one incident: pods, events, logs, metrics, config, deployment, then all six again.
    const round = (logs: string): CallSpec[] =>
      ["get_pods", "get_events", "get_logs", "get_metrics", "get_config", "get_deployment"].map((tool) => ({
        tool,
        args: { namespace: "checkout" },
        out: tool === "get_logs" ? logs : `${tool}: unchanged`,
      }));
    const again = (specs: CallSpec[]) => [...specs.slice(0, -1), open(specs.at(-1)!)];
    expect(severity(decideOn([...round("OOMKilled"), ...again(round("OOMKilled"))]), "cycle")).toBe("block");
    expect(severity(decideOn([...round("OOMKilled"), ...again(round("Started container"))]), "cycle")).toBe("none");
  });

  it("spares an alternation whose results change (two jobs polled in turn while both move)", () => {
    const job = (id: string, out?: string): CallSpec => ({ tool: "check_job_status", args: { job_id: id }, ...(out ? { out } : {}) });
    const specs = [job("a", "a-0"), job("b", "b-0"), job("a", "a-30"), job("b", "b-25"), job("a", "a-70"), job("b")];
    expect(severity(decideOn(specs), "cycle")).toBe("none");
  });

  it("reads a change that writes something else as a new attempt, and the very same change again as a round", () => {
    // mini-swe-agent on sphinx-8595: a new __all__ each round, the build, the built text (the same twice).
    const write = (all: string): CallSpec => ({ tool: "bash", args: { command: `cat <<'EOF' > reproduction/example.py\n__all__ = ${all}\n\ndef foo():\n    "docstring"\nEOF` }, result: "<returncode>0</returncode>\n<output>\n</output>" });
    const build: CallSpec = { tool: "bash", args: { command: "rm -rf reproduction/_build\nsphinx-build -b text reproduction reproduction/_build" }, result: "<returncode>0</returncode>\n<output>\nbuild succeeded.\n</output>" };
    const cat: CallSpec = { tool: "bash", args: { command: "cat reproduction/_build/index.txt" }, result: "<returncode>0</returncode>\n<output>\nexample.foo()\n\n   docstring\n</output>" };
    const next = (spec: CallSpec): CallSpec => ({ tool: spec.tool, args: spec.args });
    expect(severity(decideOn([write("['foo', 'missing']"), build, cat, write("('foo',)"), build, cat, next(write("()"))]), "cycle")).toBe("none");
    expect(severity(decideOn([write("('foo',)"), build, cat, write("('foo',)"), build, cat, next(write("('foo',)"))]), "cycle")).toBe("block");
  });

  it("reads a test that fails on the next problem after each fix as a test-fix cycle, and the same failure each round as a ping-pong", () => {
    // A unit-fix loop: the test, then a patch named only by its attempt (the same request each time).
    const test = (failure?: string): CallSpec => ({ tool: "run_unit_tests", args: { module: "billing" }, ...(failure ? { result: failure } : {}) });
    const patch = (attempt: number): CallSpec => ({ tool: "patch_implementation", args: { module: "billing", attempt }, result: "patch applied" });
    const moving = [1, 2, 3].flatMap((n) => [test(`FAILED tests/test_billing.py::test_${n} - AssertionError: invoice line ${n} missing`), patch(n)]);
    expect(decideOn([...moving, test()]).state).not.toBe("OPEN");
    const same = [1, 2, 3].flatMap((n) => [test("FAILED tests/test_billing.py::test_totals - AssertionError: 118.0 != 120.0"), patch(n)]);
    expect(severity(decideOn([...same, test()]), "cycle")).toBe("block");
  });

  it("spares alternating tools with new arguments each time", () => {
    const specs = ["Acme", "Globex", "Initech"].flatMap((n, i): CallSpec[] => [
      { tool: "query_crm", args: { company_name: n }, out: `crm-${i}` },
      { tool: "get_financials", args: { company_id: `acc_00${i}` }, out: `fin-${i}` },
    ]);
    expect(severity(decideOn([...specs, { tool: "query_crm", args: { company_name: "Hooli" } }]), "cycle")).toBe("none");
  });

  it("leaves a plain repeat (period 1) to the repeat detectors", () => {
    expect(severity(decideOn(times(5, { tool: "t", args: { a: 1 }, out: "same" })), "cycle")).toBe("none");
  });
});

describe("refused_tools", () => {
  // Recorded shapes: theappapp's invented tools, kimi-cli's "Tool ... not found", agenticx's refusal in Chinese.
  const unknown = (tool: string): CallSpec => ({ tool, args: {}, error: `Unknown tool: ${tool}` });

  it("blocks the third invented tool in a row that the harness refuses the same way, in any language", () => {
    expect(severity(decideOn([unknown("interview_tool"), { tool: "Miro", args: {} }]), "refused_tools")).toBe("none");
    expect(severity(decideOn([unknown("interview_tool"), unknown("Miro"), { tool: "Jira", args: {} }]), "refused_tools")).toBe("block");
    const notFound = (tool: string): CallSpec => ({ tool, args: { command: "find ~/.claude -name '*.md'" }, error: `Tool "${tool}" not found` });
    expect(decideOn([notFound("functions_Bash"), notFound("functions_UpdateGoal"), { tool: "functions_Bash_0", args: {} }]).state).toBe("OPEN");
    const refused = (tool: string): CallSpec => ({ tool, args: {}, error: `工具 '${tool}' 不在当前允许列表中，已拒绝执行。` });
    const decision = decideOn([refused("bash_exec(command ls 0"), refused("bash_exec(command ls 1"), { tool: "bash_exec(command ls 2", args: {} }]);
    expect(findingOf(decision, "refused_tools")).toMatchObject({ severity: "block", steps: [1, 2, 3] });
  });

  it("reads the graph's own refusal of a tool it does not have", () => {
    const graphRefusal = (tool: string): CallSpec => ({ tool, args: {}, error: `Unknown tool "${tool}". Available tools: query_crm, kb_search.` });
    expect(severity(decideOn([graphRefusal("launch_rockets"), graphRefusal("fire_lasers"), { tool: "open_portal", args: {} }]), "refused_tools")).toBe("block");
  });

  it("lets a model that found a real tool go on, and leaves tools failing in their own ways to the other detectors", () => {
    const answered = { tool: "query_crm", args: { company_name: "Acme" }, result: "Acme Corp: 120 employees" };
    // After two refusals the model calls a tool that has worked: its own call, not another guess.
    expect(severity(decideOn([answered, unknown("crm_lookup"), unknown("crm_search"), { ...answered, result: undefined }]), "refused_tools")).toBe("none");
    // Two real tools failing with their own errors: nothing the harness says about every tool.
    const edit = { tool: "file_edit", args: { path: "a.ts" }, error: "old_string not found in a.ts" };
    const patch = { tool: "apply_patch", args: { path: "a.ts" }, error: "patch does not apply: hunk #1 failed" };
    expect(severity(decideOn([edit, patch, { tool: "write_file", args: { path: "a.ts" } }]), "refused_tools")).toBe("none");
    // The graph's wrapper names the tool that ran ("browser_click failed: ..."): the tool's own words decide.
    const wrapped = (tool: string): CallSpec => ({ tool, args: {}, error: `${tool} failed: Timeout 30000ms exceeded` });
    expect(severity(decideOn([wrapped("browser_click"), wrapped("browser_snapshot"), { tool: "browser_navigate", args: {} }]), "refused_tools")).toBe("none");
    // The same refused tool again is a repeat of one request, judged by the repeat detectors.
    expect(severity(decideOn([unknown("Miro"), unknown("Jira"), { tool: "Miro", args: {} }]), "refused_tools")).toBe("none");
  });
});

describe("error_flood", () => {
  const sql = (text: string, out?: string): CallSpec => ({ tool: "query_database", args: { sql: text }, ...(out ? { out } : {}) });

  it("lets the call after four straight failures try something else, and blocks the sixth after five", () => {
    const failing = ["SELECT SUM(a) FROM t", "SELECT a FROM t", "SELECT * FROM totals", "SELECT * FROM t GROUP BY c", "SELECT b FROM u"].map((s) => sql(s, "error"));
    expect(severity(decideOn([...failing.slice(0, 4), sql("SELECT x")]), "error_flood")).toBe("warn");
    const decision = decideOn([...failing, sql("SELECT y")]);
    expect(findingOf(decision, "error_flood")).toMatchObject({ severity: "block", steps: [1, 2, 3, 4, 5, 6] });
  });

  it("restarts after any call that did not fail", () => {
    const specs = [sql("a", "error"), sql("b", "error"), sql("c", "rows"), sql("d", "error"), sql("e", "error"), sql("f")];
    expect(severity(decideOn(specs), "error_flood")).toBe("none");
  });

  it("does not count calls the harness cancelled because a sibling in their batch failed", () => {
    const read = (path: string, error: string): CallSpec => ({ tool: "Read", args: { file_path: path }, error });
    const cancelled = ["schemas", "services", "models", "routes"].map((dir) => read(`app/${dir}`, "<tool_use_error>Sibling tool call errored</tool_use_error>"));
    const specs = [read("app/api", "EISDIR: illegal operation on a directory, read"), ...cancelled, { tool: "Glob", args: { pattern: "app/**/*.py" } }];
    expect(severity(decideOn(specs), "error_flood")).toBe("none");
    expect(summarizeOutcome({ output: "cancelled" }).kind).toBe("ok");
  });

  it("lets a call be asked again after the harness cancelled it, and still counts the ones that ran", () => {
    const status = (spec: Partial<CallSpec>): CallSpec => ({ tool: "Bash", args: { command: "git status --short" }, ...spec });
    const sibling = { error: "<tool_use_error>Sibling tool call errored</tool_use_error>" };
    expect(severity(decideOn([status({ result: " M src/a.ts" }), status(sibling), status(sibling), status({})]), "identical_repeat")).toBe("none");
    expect(severity(decideOn([status({ result: " M src/a.ts" }), status({ result: " M src/a.ts" }), status(sibling), status({ result: " M src/a.ts" }), status({})]), "identical_repeat")).toBe("block");
  });

  it("warns, not blocks, the first call of another tool after one tool's failures, and blocks once that fails too", () => {
    const download = (hash: string): CallSpec => ({ tool: "download_book", args: { hash }, error: "MCP error 0: No downloads left" });
    const quota = ["952832e1", "861e122a", "8a969593", "56086b17", "e0e2e267"].map(download);
    const list: CallSpec = { tool: "bash", args: { command: "ls -lh books/" } };
    expect(severity(decideOn([...quota, list]), "error_flood")).toBe("warn");
    const failedList: CallSpec = { ...list, error: "ls: cannot access 'books/': No such file or directory" };
    expect(severity(decideOn([...quota, failedList, { tool: "read_file", args: { path: "books/index.txt" } }]), "error_flood")).toBe("block");
  });
});

describe("budgets", () => {
  const one: CallSpec[] = [{ tool: "t", args: {} }];

  it("warns and blocks on session tokens", () => {
    expect(severity(decideOn(one, { usage: { inputTokens: 390_000, outputTokens: 20_000 } }), "token_budget")).toBe("warn");
    expect(findingOf(decideOn(one, { usage: { inputTokens: 480_000, outputTokens: 20_000 } }), "token_budget")).toMatchObject({
      severity: "block",
      count: 500_000,
    });
  });

  it("warns and blocks on session cost in dollars", () => {
    expect(severity(decideOn(one, { usage: { costMicros: 1_200_000 } }), "cost_budget")).toBe("warn");
    const decision = decideOn(one, { usage: { costMicros: 1_600_000 } });
    expect(findingOf(decision, "cost_budget")!.message).toContain("$1.60 (limit $1.50)");
  });

  it("counts calls per sliding window and per run", () => {
    const burst = Array.from({ length: 50 }, (_, i): CallSpec => ({ tool: "get", args: { id: `x${i}` }, out: `r${i}`, at: 1 + i * 0.1 }));
    expect(severity(decideOn(burst), "call_rate")).toBe("block");
    expect(severity(decideOn(burst.slice(0, 40)), "call_rate")).toBe("warn");
    const { warn, block } = DEFAULT_POLICY.detectors.run_calls;
    const long = Array.from({ length: block }, (_, i): CallSpec => ({ tool: "get", args: { id: `x${i}` }, out: `r${i}`, at: i * 10 }));
    expect(severity(decideOn(long), "run_calls")).toBe("block");
    expect(severity(decideOn(long.slice(0, warn)), "run_calls")).toBe("warn");
    expect(severity(decideOn(long.slice(0, warn - 1)), "run_calls")).toBe("none");
  });
});

describe("every finding", () => {
  it("names its detector, a severity, a sentence and the evidence steps, candidate last", () => {
    const decision = decideOn([kb("sso", 0, "empty"), kb("sso", 5, "empty"), kb("sso", 10)], { usage: { inputTokens: 600_000 } });
    expect(decision.findings.length).toBeGreaterThanOrEqual(2);
    for (const f of decision.findings) {
      expect(f.detector).toMatch(/^[a-z_]+$/);
      expect(["warn", "block"]).toContain(f.severity);
      expect(f.message).toMatch(/^\S.{20,}\.$/);
      expect(f.steps.at(-1)).toBe(3);
    }
  });
});
