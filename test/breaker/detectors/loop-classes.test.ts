import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../../breaker/outcome.js";
import { isInProgress } from "../../../breaker/output-signals.js";
import { DEFAULT_POLICY } from "../../../breaker/policy.js";
import { isNoOpCommand } from "../../../breaker/detectors/no-op.js";
import { decideOn, findingOf, severity, type CallSpec } from "../support/window.js";

// The classes of behaviour held-out data showed the detectors getting wrong, each with its
// legitimate counterpart, built from the shapes real tools return.

const blocked = (specs: CallSpec[], policy?: Parameters<typeof decideOn>[1]) => decideOn(specs, policy).state === "OPEN";

describe("fresh identifiers are not progress", () => {
  const post = (i: number): CallSpec => ({
    tool: "slack_post_message",
    args: { channel: "C04DEPLOYS", text: "billing-api is rolling out" },
    result: { ok: true, channel: "C04DEPLOYS", ts: `1715012345.00${i}100`, message: { text: "billing-api is rolling out", client_msg_id: `3f9a${i}c2e-77d1-4b8e-9c0a-1b2c3d4e5f6${i}` } },
  });

  it("reads results that differ only in ids, times and counters as one result", () => {
    const a = summarizeOutcome({ output: { messageId: "msg_01HZX3K9QW", runId: "run_7f3a9c2e", sentAt: "2025-05-12T14:00:01Z", attempt: 1, status: "sent" } });
    const b = summarizeOutcome({ output: { messageId: "msg_01HZX4M2ZP", runId: "run_91bd04aa", sentAt: "2025-05-12T14:00:09Z", attempt: 2, status: "sent" } });
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.ids).not.toBe(b.ids);
    const text = (pid: number, id: string) => summarizeOutcome({ output: `Command still running (session ${id}, pid ${pid}). Started 2025-05-12 14:00:0${pid % 10}.` });
    expect(text(4211, "ocean-7").fingerprint).toBe(text(4297, "ocean-8").fingerprint);
  });

  it("reads an environment's step number, a duration named by its unit and milliseconds in prose as fresh, and the observation as news", () => {
    // A GUI environment answering each action with its step; an experiment log with its wall time; a vitest summary.
    const screen = (step: number, view = "Home screen, 12 icons") => summarizeOutcome({ output: { step_idx: step, observation: view, done: false } }).fingerprint;
    expect(screen(3)).toBe(screen(4));
    expect(screen(3)).not.toBe(screen(4, "Settings, Wi-Fi off"));
    // A word under a counter's name is content: a plan's next step, a DNA sequence.
    const plan = (next_step: string) => summarizeOutcome({ output: { next_step, done: false } }).fingerprint;
    expect(plan("Deploy to staging")).not.toBe(plan("Roll back the release"));
    const trial = (wall: number, score: number) => summarizeOutcome({ output: { exp_wall_s: wall, duration_ms: wall * 1000, score } }).fingerprint;
    expect(trial(78.5, 52.3)).toBe(trial(83.1, 52.3));
    expect(trial(78.5, 52.3)).not.toBe(trial(78.5, 61.0));
    const vitest = (ms: number, failed = 77) => summarizeOutcome({ output: `Test Files  22 failed | 40 passed\n      Tests  ${failed} failed | 310 passed\n   Duration  3.19s (transform ${ms}ms, setup 0ms, collect 1.2s)` }).fingerprint;
    expect(vitest(902)).toBe(vitest(1130));
    expect(vitest(902)).not.toBe(vitest(902, 76));
  });

  it("reads an id labelled in prose as an id, however short, and a listing of many as records", () => {
    // Codex CLI's exec answers: a fresh chunk id and wall time above the same output.
    const exec = (chunk: string, output = "") => summarizeOutcome({ output: `Chunk ID: ${chunk}\nWall time: 0.40${chunk.length} seconds\nProcess exited with code 0\nOutput:\n${output}` });
    expect(exec("1a4eac").fingerprint).toBe(exec("55404c").fingerprint);
    expect(exec("1a4eac", "3 passed").fingerprint).not.toBe(exec("55404c", "2 passed, 1 failed").fingerprint);
    const rows = (first: number) => [0, 1, 2, 3, 4].map((i) => `id: ${first + i} status: open`).join("\n");
    expect(summarizeOutcome({ output: rows(10) }).fingerprint).not.toBe(summarizeOutcome({ output: rows(20) }).fingerprint);
  });

  it("reads a short random suffix glued to a name a program made as an id, and other names as other names", () => {
    // A pentest agent's log: each run of one command saves its observation under a fresh suffix.
    const saved = (name: string) => summarizeOutcome({ output: `Observation saved to '/home/agent/Projects/${name}.txt'` }).fingerprint;
    expect(saved("dig_short_wwwexamplecom_a97d71")).toBe(saved("dig_short_wwwexamplecom_606cd5"));
    expect(saved("notes_draft")).not.toBe(saved("notes_final"));
    expect(saved("invoice_march_a97d71")).not.toBe(saved("invoice_april_a97d71"));
  });

  it("reads the step counter and compact time in a saved screenshot's name as fresh, and another answer or file as news", () => {
    // A recorded OSWorld run: the same failed click, each step saving a screenshot named for its step and time.
    const step = (n: number, time: string, response = "click(failed):Insert tab") =>
      summarizeOutcome({ output: JSON.stringify({ response, reward: 0, done: false, info: {}, screenshot_file: `step_${n}_20250828@${time}.png` }) }).fingerprint;
    expect(step(1, "213538")).toBe(step(2, "213540"));
    expect(step(3, "213553", "click:Insert tab")).not.toBe(step(2, "213540"));
    const saved = (name: string) => summarizeOutcome({ output: `Saved ${name}` }).fingerprint;
    expect(saved("backup-20250828T211645.tar")).toBe(saved("backup-20250829T080102.tar"));
    // A version in a name, a long number that is no date-time and a step counted in prose are content.
    expect(saved("release_v2_notes.md")).not.toBe(saved("release_v3_notes.md"));
    expect(saved("parcel 20251345123456")).not.toBe(saved("parcel 20251345123457"));
    expect(saved("checkpoint at step 1200 of 5000")).not.toBe(saved("checkpoint at step 1300 of 5000"));
  });

  it("reads a request stamped with a fresh call id or nonce as the same request, and a different request or trace id as another", () => {
    const read = (i: number): CallSpec => ({ tool: "workspace_read", args: { callId: `call-${i}`, path: "/a.txt", nonce: `n${i}a9` }, result: { content: "same" } });
    expect(severity(decideOn([read(0), read(1), read(2), { tool: "workspace_read", args: read(3).args }]), "identical_repeat")).toBe("block");
    // Request and trace ids are often what is asked about: three requests' statuses, three traces.
    const status = (i: number): CallSpec => ({ tool: "get_request_status", args: { requestId: `REQ-${i}` }, result: { status: "open" } });
    expect(severity(decideOn([status(1), status(2), status(3), { tool: "get_request_status", args: status(4).args }]), "identical_repeat")).toBe("none");
    const trace = (i: number): CallSpec => ({ tool: "get_trace", args: { traceId: `4bf92f3577b34da6a3ce929d0e0e473${i}` }, result: { spans: [] } });
    expect(severity(decideOn([trace(1), trace(2), trace(3), { tool: "get_trace", args: trace(4).args }]), "identical_repeat")).toBe("none");
  });

  it("reads a retry numbered by its attempt as the same request, and an iteration or a page as another", () => {
    // A retry helper that passes its attempt number to the call and puts it in the error it gets back.
    const attempt = (n: number): CallSpec => ({ tool: "flaky_operation", args: { jobId: "job-7", attempt: n }, error: `job-7 rejected (attempt ${n}): schema mismatch` });
    expect(blocked([attempt(1), attempt(2), { tool: "flaky_operation", args: { jobId: "job-7", attempt: 3 } }])).toBe(true);
    expect(blocked([attempt(1), attempt(2), { tool: "flaky_operation", args: { jobId: "job-8", attempt: 1 } }])).toBe(false);
    // An iteration asked for is what is asked: checkpoints 100, 200, 300 are three requests.
    const checkpoint = (iteration: number): CallSpec => ({ tool: "load_checkpoint", args: { run: "r1", iteration }, error: "checkpoint store unreachable: permission denied" });
    expect(severity(decideOn([checkpoint(100), checkpoint(200), { tool: "load_checkpoint", args: { run: "r1", iteration: 300 } }]), "identical_repeat")).toBe("none");
  });

  it("reads a long listing whose clock column and parent-directory row moved as the same listing, and a new entry as news", () => {
    const listing = (time: string, links: number, extra = "") =>
      summarizeOutcome({
        output: `total 508\ndrwxrwxr-x    3 dev dev   4096 мая 30 22:52 .\ndrwxrwxrwt ${links} root root 507904 мая 30 ${time} ..\ndrwxrwxr-x    3 dev dev   4096 Dec  1 ${time} invoice\n${extra}`,
      }).fingerprint;
    expect(listing("22:59", 9259)).toBe(listing("23:04", 9262));
    expect(listing("22:59", 9259, "-rw-r--r--    1 dev dev    120 Dec  1 23:05 pom.xml\n")).not.toBe(listing("22:59", 9259));
  });

  it("reads test runs that differ only in their measured timings as one result, and a different verdict as news", () => {
    const run = (secs: string, failed = 2) =>
      summarizeOutcome({
        output: `FAILED tests/test_napoleon.py::test_params\n==== ${failed} failed, 7 warnings in 0.06s ====\npy39: exit 1 (${secs} seconds) /testbed> pytest -rA pid=${Math.round(Number(secs) * 1000)}\n  py39: FAIL code 1 (${secs}=setup[0.01]+cmd[${secs}] seconds)\n  evaluation failed :( (0.5${secs.at(-1)} seconds)`,
      }).fingerprint;
    expect(run("0.42")).toBe(run("0.57"));
    expect(run("0.42", 3)).not.toBe(run("0.42"));
    const log = (secs: string) => summarizeOutcome({ output: `Finished call to 'acompletion_text' after ${secs}(s), this was the 1st time calling it.` }).fingerprint;
    expect(log("0.441")).toBe(log("0.238"));
    // A whole number of seconds may be a setting the tool echoes, not a measurement.
    expect(summarizeOutcome({ output: "Retrying with a timeout of 30 seconds" }).fingerprint).not.toBe(summarizeOutcome({ output: "Retrying with a timeout of 60 seconds" }).fingerprint);
  });

  it("stops the same message posted again and again, each time with a fresh ts", () => {
    expect(findingOf(decideOn([post(1), post(2), post(3), { tool: "slack_post_message", args: post(4).args }]), "no_progress")?.severity).toBe("block");
  });

  it("keeps records in a list apart by their ids: pages of ids only are still new pages", () => {
    const page = (ids: string[]) => summarizeOutcome({ output: { messages: ids.map((id) => ({ id, threadId: id })), nextPageToken: "tok" } });
    expect(page(["18c1a2b3c4d5e6f7", "18c1a2b3c4d5e6f8"]).fingerprint).not.toBe(page(["18c1a2b3c4d5e6f9", "18c1a2b3c4d5e6fa"]).fingerprint);
  });

  it("masks ids glued to a prefix in prose and durations written as fields, and stops the identical dispatch", () => {
    const spawn = (batch: string, wisp: string, ms: number): CallSpec => ({
      tool: "spawn_wisps",
      args: { definitions: [{ name: "inbox-digest", prompt: "Summarise today's unread mail." }] },
      result: `Batch batch-${batch} completed: 1 wisp(s).\n- wisp-${wisp} (inbox-digest): completed, stepsCompleted: 4, durationMs: ${ms}`,
    });
    const runs = [
      spawn("ec7d4222-6f41-2481-4fde-580f122088a5", "4b4648a8-7218-76c8-c975-ccd53f0a3984", 3148),
      spawn("8f78af9b-c886-3285-dc8a-5da4fa7ad3f5", "ed308edf-dda2-d23e-be89-64d1185e5ea5", 4127),
    ];
    expect(summarizeOutcome({ output: runs[0]!.result }).fingerprint).toBe(summarizeOutcome({ output: runs[1]!.result }).fingerprint);
    expect(blocked([...runs, spawn("20c1cde3-85c7-7bb7-77f2-16ad2f29bda5", "11cabb59-b74f-465d-c8c6-15dbeac97d89", 3588), { tool: "spawn_wisps", args: runs[0]!.args }])).toBe(true);
    // A lone "time" in prose may count anything: "time: 3" and "time: 4" are different answers.
    expect(summarizeOutcome({ output: "time: 3" }).fingerprint).not.toBe(summarizeOutcome({ output: "time: 4" }).fingerprint);
    // A count written as a field is content: a different number of steps is a different answer.
    expect(summarizeOutcome({ output: "completed, stepsCompleted: 4" }).fingerprint).not.toBe(summarizeOutcome({ output: "completed, stepsCompleted: 5" }).fingerprint);
  });

  it("reads a harness's budget counting down as a counter, and stops the same program run five times for it", () => {
    // MINT's observation after each execution: only the steps left move.
    const observe = (left: number) => `Observation:\n[Executed Successfully with No Output]\nYou have ${left} steps left and 2 chances to propose solution left.\n`;
    expect(summarizeOutcome({ output: observe(4) }).fingerprint).toBe(summarizeOutcome({ output: observe(3) }).fingerprint);
    expect(summarizeOutcome({ output: "Edit rejected. remaining attempts: 3" }).fingerprint).toBe(summarizeOutcome({ output: "Edit rejected. remaining attempts: 2" }).fingerprint);
    const execute = (left: number): CallSpec => ({ tool: "execute", args: { code: "def f(xs):\n    return sorted(xs)" }, result: observe(left) });
    expect(blocked([execute(4), execute(3), execute(2), { tool: "execute", args: execute(1).args }])).toBe(true);
    // What is left of the work, not of the budget, is content: a queue that shrinks is a job moving.
    expect(summarizeOutcome({ output: "3 files left to index" }).fingerprint).not.toBe(summarizeOutcome({ output: "2 files left to index" }).fingerprint);
    expect(summarizeOutcome({ output: "Position in queue: 3 jobs ahead" }).fingerprint).not.toBe(summarizeOutcome({ output: "Position in queue: 2 jobs ahead" }).fingerprint);
  });

  it("keeps a status that moved apart: state-1 and state-2 are different answers", () => {
    expect(summarizeOutcome({ output: "state-1" }).fingerprint).not.toBe(summarizeOutcome({ output: "state-2" }).fingerprint);
  });
});

describe("a page is judged by its records, not its envelope", () => {
  // Recorded shape (gasoline-mcp): offset paging over a live log buffer hands back the same entries at every offset.
  const entries = [{ message: "User clicked", timestamp: "2026-01-30T10:15:23.456Z" }, { message: "API called", timestamp: "2026-01-30T10:15:01.000Z" }];
  const page = (offset: number, records = entries): CallSpec => ({
    tool: "observe",
    args: { what: "logs", offset, limit: 100 },
    result: { entries: records, count: records.length, total: offset + 100, offset, limit: 100, has_more: false, next_cursor: `c${offset + 100}` },
  });

  it("stops offsets that keep returning the same records, whatever the paging fields say", () => {
    expect(blocked([page(0), page(100), page(200), page(300), { tool: "observe", args: { what: "logs", offset: 400, limit: 100 } }])).toBe(true);
  });

  it("lets pages with new records run, and keeps a field that is content", () => {
    const fresh = (offset: number) => page(offset, [{ message: `event ${offset}`, timestamp: "2026-01-30T10:15:23.456Z" }]);
    expect(blocked([fresh(0), fresh(100), fresh(200), fresh(300), { tool: "observe", args: { what: "logs", offset: 400, limit: 100 } }])).toBe(false);
    // Outside a page (no records listed) a count is the answer: 3 waiting, then 4.
    const fingerprint = (output: unknown) => summarizeOutcome({ output }).fingerprint;
    expect(fingerprint({ queue: "billing", count: 3 })).not.toBe(fingerprint({ queue: "billing", count: 4 }));
    expect(fingerprint({ jobs: [], total: 3 })).not.toBe(fingerprint({ jobs: [], total: 4 }));
    // Beside records, the paging fields are envelope: the same records at another offset are the same page.
    expect(fingerprint({ jobs: [{ name: "a" }], total: 3, offset: 0 })).toBe(fingerprint({ jobs: [{ name: "a" }], total: 4, offset: 100 }));
  });
});

describe("errors and empties, wherever they are said", () => {
  it("reads a failure stated in any verdict or exit field, and leaves fields that only look alike", () => {
    for (const output of [{ outcome: "failed", runner_exit: 1, score: "NaN" }, { name: "lint", conclusion: "failure" }, { run_state: "errored" }, { runner_exit: 2 }]) {
      expect(summarizeOutcome({ output }).kind, JSON.stringify(output)).toBe("error");
    }
    for (const output of [{ outcome: "promoted", runner_exit: 0 }, { conclusion: "success" }, { symbol: "ACME", exit_price: 12.5 }, { failover_state: "standby", last_failure: "failed" }]) {
      expect(summarizeOutcome({ output }).kind, JSON.stringify(output)).toBe("ok");
    }
  });

  it("reads a subject that failed, said first, as a failure, and a terminal that printed only its prompt as empty", () => {
    // Recorded shapes: tau2-bench's run_speed_test, a Cursor terminal capture showing only the shell prompt.
    for (const output of ["Speed test failed: No Connection.", "Upload failed", "Login failed. Check your password."]) {
      expect(summarizeOutcome({ output }).kind).toBe("error");
    }
    for (const output of ["Nothing failed today", "0 failed, 12 passed", "Retrying the step that failed to find its input", "Deploy succeeded; no job failed"]) {
      expect(summarizeOutcome({ output }).kind).not.toBe("error");
    }
    expect(summarizeOutcome({ output: "runner@d4d5b82998e1:~/workspace$" }).kind).toBe("empty");
    expect(summarizeOutcome({ output: "runner@d4d5b82998e1:~/workspace$ cd /home/runner/workspace && python -u main.py\nrunner@d4d5b82998e1:~/workspace$" }).kind).toBe("empty");
    // A program's own lines between the prompts are its output.
    expect(summarizeOutcome({ output: "runner@host:~$ python main.py\n=== Testing Schema Translation ===\nrunner@host:~$" }).kind).toBe("ok");
  });

  it("reads a failure reported as an event as a failure, and a sentence about errors that did not happen as a success", () => {
    for (const output of ["An error occurred: module 'os' has no attribute 'setsid'", "An unexpected error has occurred. Please contact support.", "Something went wrong while rendering the chart"]) {
      expect(summarizeOutcome({ output }).kind, output).toBe("error");
    }
    for (const output of ["No error occurred during the import: 42 rows loaded", "The log lists when each error occurred: 3 entries"]) {
      expect(summarizeOutcome({ output }).kind, output).toBe("ok");
    }
  });

  it("reads a search that exited 1 without a word as finding nothing, and any other silent exit 1 as a failure", () => {
    const exited = "\n[exitCode: 1]";
    const run = (cmd: string) => summarizeOutcome({ output: exited, args: { cmd } });
    expect(run('npm run build 2>&1 | findstr /i "error"').kind).toBe("empty");
    expect(run("grep -rn ImportPlan src").kind).toBe("empty");
    expect(summarizeOutcome({ output: "Exit code 1", args: { command: "rg -n 'TODO' src" } }).kind).toBe("empty");
    expect(run("npm run build").kind).toBe("error");
    // A search that printed something, or exited 2 (its own failure), failed.
    expect(summarizeOutcome({ output: "grep: src: No such file or directory\n[exitCode: 2]", args: { cmd: "grep -rn X src" } }).kind).toBe("error");
    expect(summarizeOutcome({ output: "[exitCode: 2]", args: { cmd: "grep -rn X src" } }).kind).toBe("error");
  });

  it("reads a Windows terminal that printed only its banner, its prompt and the command it echoes as empty, and stops the third such run", () => {
    // Recorded shape (Windsurf Cascade): `node -v` sent before cmd.exe finished starting.
    const lost = "node -v\n\nMicrosoft Windows [Version 10.0.26200.8037]\n(c) Microsoft Corporation. All rights reserved.\n\nc:\\path>";
    expect(summarizeOutcome({ output: lost, args: { command: "node -v" } }).kind).toBe("empty");
    expect(summarizeOutcome({ output: "PS C:\\app> node -v\nPS C:\\app>", args: { command: "node -v" } }).kind).toBe("empty");
    const run = (result?: string): CallSpec => ({ tool: "run_command", args: { command: "node -v" }, ...(result === undefined ? {} : { result }) });
    expect(blocked([run(lost), run(lost), run()])).toBe(true);
    // The program's own answer beside the prompt is output; so is a line the call did not send.
    const answered = "node -v\nv20.11.1\n\nc:\\path>";
    expect(summarizeOutcome({ output: answered, args: { command: "node -v" } }).kind).toBe("ok");
    expect(summarizeOutcome({ output: "node -v\n\nc:\\path>", args: { command: "npm -v" } }).kind).toBe("ok");
    expect(blocked([run(answered), run("Build succeeded.\n\nc:\\path>"), run()])).toBe(false);
  });

  it.each([
    ["an error word opening the text", "Runtime failed: container exited"],
    ["an exit code at the end", "npm ERR! missing script: lint\n... returned exit code 1"],
    ["a Python traceback", "Traceback (most recent call last):\n  File \"x.py\", line 3\nKeyError: 'id'"],
    ["a raised exception line", "  Cell In[1], line 42\n    ^\nSyntaxError: invalid syntax"],
    ["a JavaScript stack", "TypeError: x is undefined\n    at run (/app/a.js:10:5)\n    at main (/app/b.js:2:1)"],
    ["status error", { status: "error", message: "quota exceeded" }],
    ["ok false", { ok: false, error: "channel_not_found" }],
    ["an HTTP status field", { statusCode: 404, message: "Not Found" }],
    ["a non-zero exit in an envelope", { content: [{ type: "text", text: "done" }], details: { exitCode: 2 } }],
    ["an MCP error flag", { content: [{ type: "text", text: "tool refused" }], isError: true }],
    ["an API's message field in prose", "code=99992402, msg=field validation failed\nrecords: 0\nhas_more: False"],
    ["an errmsg beside its code", "errcode: 40001, errmsg: invalid credential"],
  ])("reads %s as an error", (_label, output) => {
    expect(summarizeOutcome({ output }).kind).toBe("error");
  });

  it.each([
    ["[]", "[]"],
    ["an empty envelope", { results: [], total: 0 }],
    ["a zero count", { count: 0 }],
    ["null", null],
    ["(nothing stored)", "(nothing stored)"],
    ["No matching items", "No matching items"],
    ["0 rows", "(0 rows)"],
    ["not found", "Customer ACME-42 not found"],
    ["a logger's placeholder for no output", "[empty-output]"],
    ["no results spelled as one word", "<no_results>"],
  ])("reads %s as empty", (_label, output) => {
    expect(summarizeOutcome({ output }).kind).toBe("empty");
  });

  it.each([
    ["No errors found", "No errors found"],
    ["No changes detected", "No changes detected."],
    ["a status line", "Deployment billing-api: 3/3 replicas available"],
    ["a sentence that starts with the word", "empty-handed: the courier returned without the parcel"],
    ["an API's message field saying it worked", "code=0, msg=success"],
    ["a message that counts failures among successes", "message: upload complete, 0 failed"],
  ])("does not read %s as empty: it reports a success", (_label, output) => {
    expect(summarizeOutcome({ output }).kind).toBe("ok");
  });
});

describe("results that echo the request", () => {
  it("read the same when they differ only by the argument they repeat", () => {
    const failure = (path: string) => summarizeOutcome({ error: `ToolError: Cannot parse path "${path}": it is absolute.`, args: { path } });
    expect(failure("/docs/pricing-faq.md").fingerprint).toBe(failure("/docs/Pricing_FAQ.md").fingerprint);
    const none = (q: string) => summarizeOutcome({ output: `No results for '${q}'.`, args: { query: q } });
    expect(none("acme corp").fingerprint).toBe(none("ACME Corporation").fingerprint);
    // Only whole tokens are echoes: a value inside a longer word (the tool's own name) is left alone.
    const auth = (args: object) => summarizeOutcome({ error: "start_google_auth failed: missing required parameter 'service_name'", args });
    expect(auth({ provider: "google" }).fingerprint).toBe(auth({ account: "me" }).fingerprint);
  });

  it("give failures that differ only in the name they were asked about one shape: table guesses are one miss", () => {
    const select = (table: string) => summarizeOutcome({ error: `relation "${table}" does not exist`, args: { sql: `SELECT * FROM ${table} WHERE id = 1` } });
    expect(select("payments").fingerprint).not.toBe(select("refunds").fingerprint);
    expect(select("payments").shape).toBe(select("refunds").shape);
    const guesses = ["payments", "refunds", "ledger_entries", "audit_trail", "shipments"].map(
      (table): CallSpec => ({ tool: "query_database", args: { sql: `SELECT * FROM ${table}` }, error: `relation "${table}" does not exist` }),
    );
    expect(severity(decideOn([...guesses, { tool: "query_database", args: { sql: "SELECT * FROM vendors" } }]), "flailing")).toBe("block");
  });

  it("stop cosmetic variants of one bad request that fail the same way, each echoing itself", () => {
    const read = (path: string): CallSpec => ({ tool: "read_file", args: { path }, error: `Cannot parse path "${path}": it is absolute.` });
    const decision = decideOn([read("/docs/pricing-faq.md"), read("/docs/Pricing-FAQ.md"), { tool: "read_file", args: { path: "/docs/pricing_faq.md" } }]);
    expect(findingOf(decision, "semantic_stutter")?.severity).toBe("block");
  });
});

describe("transient failures earn retries", () => {
  const rates = { tool: "http_get", args: { url: "https://api.exchange.example/v2/latest" } };
  const transient: CallSpec[] = [
    { ...rates, result: { error: { code: 429, message: "Too Many Requests" } } },
    { ...rates, result: "HTTP/1.1 503 Service Unavailable" },
    { ...rates, error: "Error: connect ETIMEDOUT 203.0.113.40:443" },
  ];

  it("lets the fourth identical attempt run after three transient failures", () => {
    expect(blocked([...transient, rates])).toBe(false);
  });

  it("reads a failing suite's transience in the lines that state its failure, not in the names of tests that passed", () => {
    const suite = (failure: string) =>
      `> bff@1.0.0 test\n> mocha tests/**/*.test.ts\n\n  App Integration\n    Rate Limiting\n      ✔ should allow requests under the limit\n      ✔ should return 429 with Retry-After when the rate limit is exceeded\n    Upstream\n      ✔ should map a gateway timeout to 504\n\n  3 passing (412ms)\n  1 failing\n\n  1) Users\n       should create a user:\n     ${failure}\n      at Context.<anonymous> (tests/users.test.ts:41:22)`;
    const permanent = summarizeOutcome({ output: suite("AssertionError: expected 400 to equal 201") });
    expect(permanent.kind).toBe("error");
    expect(permanent.transient).toBeUndefined();
    expect(summarizeOutcome({ output: suite("Error: connect ECONNREFUSED 127.0.0.1:5432") }).transient).toBe(true);
    // A failure that states no error line is read whole, as before.
    expect(summarizeOutcome({ output: "curl: (28) Operation timed out after 30001 milliseconds with 0 bytes received\nexit code 28" }).transient).toBe(true);
  });

  it("reads a failure that says a retry will not cure it as permanent, whatever else it names", () => {
    // A Hermes harness blocking a command it timed out, and errors that call themselves non-retryable.
    const blockedInstall = { output: "", exit_code: -1, error: "BLOCKED: Command timed out. Do NOT retry this command.", status: "blocked" };
    expect(summarizeOutcome({ output: blockedInstall })).toMatchObject({ kind: "error" });
    expect(summarizeOutcome({ output: blockedInstall }).transient).toBeUndefined();
    expect(summarizeOutcome({ error: "NonRetryableError: upstream returned 503 for a deleted resource" }).transient).toBeUndefined();
    expect(summarizeOutcome({ error: "Error: 503 Service Unavailable (retryable)" }).transient).toBe(true);
    // Three blocked attempts at one install are not three retries of a rate limit: the third is refused.
    const install: CallSpec = { tool: "terminal", args: { command: "pip install Pillow -q", timeout: 30 }, result: blockedInstall };
    expect(blocked([install, install, { tool: "terminal", args: install.args }])).toBe(true);
  });

  it("reads coreutils' `timeout` exit status 124 as a timeout, and other exit statuses as they are", () => {
    expect(summarizeOutcome({ output: "Error: Exit code 124" }).transient).toBe(true);
    expect(summarizeOutcome({ output: "Command failed with exit status 124 after 120s" }).transient).toBe(true);
    expect(summarizeOutcome({ output: "Error: Exit code 1" }).transient).toBeUndefined();
    expect(summarizeOutcome({ output: "Error: Exit code 1240" }).transient).toBeUndefined();
  });

  it("reads an error that calls itself flaky or intermittent as transient", () => {
    // Ported from gent's executor tests: a tool failing twice with "flaky error", then succeeding.
    const flaky = { tool: "flaky", args: {}, error: "flaky error" };
    expect(blocked([flaky, flaky, { tool: "flaky", args: {} }])).toBe(false);
    for (const error of ["Intermittent failure talking to the registry", "sporadic DNS failure, please retry", "retry-able error"]) {
      expect(summarizeOutcome({ error }).transient).toBe(true);
    }
    expect(summarizeOutcome({ error: "Error: record not found" }).transient).toBeUndefined();
    expect(summarizeOutcome({ error: "non-retry-able error: quota exhausted" }).transient).toBeUndefined();
  });

  it("reads a server that did not answer as transient, and a refusal that answered as permanent", () => {
    const down = { tool: "list_meetings", args: {}, error: "The connector's server isn't responding. You can try again." };
    expect(blocked([down, down, { tool: "list_meetings", args: {} }])).toBe(false);
    for (const error of ["upstream is not responding", "No response from server after 30000ms", "ssh: connect to host 10.0.0.4: Host unreachable"]) {
      expect(summarizeOutcome({ error }).transient).toBe(true);
    }
    expect(summarizeOutcome({ error: "The server responded: 403 Forbidden" }).transient).toBeUndefined();
    expect(blocked([{ ...down, error: "Meeting not found" }, { ...down, error: "Meeting not found" }, { tool: "list_meetings", args: {} }])).toBe(true);
  });

  it("reads a dropped SMTP connection as transient: the third identical send after two runs", () => {
    const send = { tool: "send_email", args: { to: "legal@partner.example", subject: "Signed contract" } };
    const dropped = { ...send, error: "SMTPServerDisconnected: Connection unexpectedly closed" };
    expect(blocked([dropped, dropped, send])).toBe(false);
  });

  it("reads an error that calls itself transient as transient: two, then the third attempt succeeds", () => {
    const read = { tool: "read_repo", args: {} };
    expect(blocked([{ ...read, error: "transient: fail 1" }, { ...read, error: "transient: fail 2" }, read])).toBe(false);
  });

  it("reads network failures and 5xx answers however a client words them as transient", () => {
    for (const error of [
      "ConnectionError: connection failed",
      "TypeError: fetch failed",
      "TypeError: Failed to fetch",
      "bad response: 503",
      "upstream returned 502",
      "An error occurred: connection error while calling the weather service",
    ]) {
      expect(summarizeOutcome({ error }).transient, error).toBe(true);
    }
    // A fetch that got its answer names it, and a 4xx in the same words is permanent.
    for (const error of ["Failed to fetch https://example.com/report.pdf: 404 Not Found", "bad response: 404", "server returned 403"]) {
      expect(summarizeOutcome({ error }).transient, error).toBeUndefined();
    }
    const fetchUrl = { tool: "fetch_url", args: { url: "https://status.example.com/api" } };
    expect(blocked([{ ...fetchUrl, error: "TypeError: Failed to fetch" }, { ...fetchUrl, error: "TypeError: Failed to fetch" }, fetchUrl])).toBe(false);
  });

  it("reads a failure that says running it again may work as transient", () => {
    expect(summarizeOutcome({ error: "Symbol table for ntkrnlmp.pdb not cached. Re-running the plugin may succeed once symbols are cached." }).transient).toBe(true);
    expect(summarizeOutcome({ error: "Lock held by another process; retrying in a minute should work" }).transient).toBe(true);
    expect(summarizeOutcome({ error: "Invalid plugin name: windows.malfnd. Re-running will fail the same way." }).transient).toBeUndefined();
  });

  it("stops the fifth attempt after four transient failures", () => {
    expect(findingOf(decideOn([...transient, { ...rates, error: "socket hang up" }, rates]), "no_progress")?.severity).toBe("block");
  });

  it("lets the same failing test run again after an edit changed the code, and stops it when only reads came between", () => {
    const pytest = (output?: string): CallSpec => ({ tool: "terminal", args: { command: "pytest -q tests/test_parse.py" }, ...(output === undefined ? {} : { result: output }) });
    const failing = "FAILED tests/test_parse.py::test_tz - ValueError: naive datetime\n1 failed, 23 passed in 1.44s";
    const patch = (n: number): CallSpec => ({ tool: "patch", args: { path: "src/parse.py", old: `hunk ${n}`, new: `fixed ${n}` }, result: `Patched parse.py: hunk ${n}` });
    const sedEdit = (n: number): CallSpec => ({ tool: "terminal", args: { command: `sed -i 's/naive${n}/aware${n}/' src/parse.py` }, result: "" });
    expect(blocked([pytest(failing), patch(1), pytest(failing), patch(2), pytest()])).toBe(false);
    expect(blocked([pytest(failing), sedEdit(1), pytest(failing), sedEdit(2), pytest()])).toBe(false);
    const read = (path: string): CallSpec => ({ tool: "read_file", args: { path }, result: `def parse(): # ${path}` });
    expect(blocked([pytest(failing), read("a.py"), pytest(failing), read("b.py"), pytest()])).toBe(true);
    // The same edit again changes nothing: it does not buy the test another run.
    expect(blocked([pytest(failing), patch(1), pytest(failing), patch(1), pytest(failing), pytest()])).toBe(true);
    // `git pull` and `git switch` change the working tree the test runs on; `git log` reads it.
    const git = (command: string): CallSpec => ({ tool: "terminal", args: { command }, result: "" });
    expect(blocked([pytest(failing), git("git pull --rebase"), pytest(failing), git("git switch fix-tz"), pytest()])).toBe(false);
    expect(blocked([pytest(failing), git("git log -1"), pytest(failing), git("git log -2"), pytest()])).toBe(true);
  });

  it("reads a command whose operation is a writing verb as a change: SWE-agent's `str_replace_editor str_replace`, not its `view`", () => {
    const repro = (output?: string): CallSpec => ({ tool: "bash", args: { command: "python /testbed/reproduce.py" }, ...(output === undefined ? {} : { result: output }) });
    const failing = 'Traceback (most recent call last):\n  File "/testbed/reproduce.py", line 4\nKeyError: 0';
    const editor = (op: string, n: number): CallSpec => ({
      tool: "bash",
      args: { command: `str_replace_editor ${op} /testbed/sklearn/model.py${op === "view" ? ` --view_range ${n} ${n + 20}` : ` --old_str 'v${n}' --new_str 'v${n + 1}'`}` },
      result: op === "view" ? `${n}\tdef fit(self):` : "The file /testbed/sklearn/model.py has been edited.",
    });
    expect(blocked([repro(failing), editor("str_replace", 1), repro(failing), editor("str_replace", 2), repro()])).toBe(false);
    expect(blocked([repro(failing), editor("view", 1), repro(failing), editor("view", 30), repro()])).toBe(true);
    // A program named for its operation: `kubectl apply`, `edit 12:14` (SWE-agent's line editor).
    const apply = (n: number): CallSpec => ({ tool: "bash", args: { command: `kubectl apply -f deploy-v${n}.yaml` }, result: "deployment.apps/web configured" });
    expect(blocked([repro(failing), apply(1), repro(failing), apply(2), repro()])).toBe(false);
  });

  it("stops an edit-test cycle whose test fails the same way however the code is edited, at the retry levels", () => {
    const pytest = (output?: string): CallSpec => ({ tool: "bash", args: { command: "python -m pytest tests/ -q" }, ...(output === undefined ? {} : { result: output }) });
    const failing = [
      "============================= test session starts ==============================",
      "tests/test_task.py ...........F                                         [100%]",
      "FAILED tests/test_task.py::test_resolve - AssertionError: assert 'a' == 'b'",
      "========================= 1 failed, 11 passed in 0.84s =========================",
    ].join("\n");
    const edit = (n: number): CallSpec => ({ tool: "edit_file", args: { path: "src/task.py", old_str: `v${n}`, new_str: `v${n + 1}` }, result: "The file src/task.py has been edited." });
    const cycle = (rounds: number) => Array.from({ length: rounds }, (_, i) => [pytest(failing), edit(i)]).flat();
    const { warn, block } = DEFAULT_POLICY.detectors.transient_retries;
    expect(severity(decideOn([...cycle(warn - 1), pytest()]), "no_progress")).toBe("warn");
    expect(severity(decideOn([...cycle(block - 1), pytest()]), "no_progress")).toBe("block");
  });

  it("stops an edit-test cycle whose test alternates between two failures, and lets one whose failure keeps moving run on", () => {
    const run = (output?: string): CallSpec => ({ tool: "bash", args: { command: "./tests/runtests.py model_inheritance" }, ...(output === undefined ? {} : { result: output }) });
    const edit = (n: number): CallSpec => ({ tool: "editor", args: { path: "django/db/models/base.py", file_text: `version ${n}` }, result: "File has been overwritten." });
    const failure = (line: string) => `Traceback (most recent call last):\n  File "runtests.py", line 23\n${line}`;
    const syntax = failure("SyntaxError: invalid syntax (base.py, line 1)");
    const attribute = failure("AttributeError: 'Options' has no attribute 'parents'");
    const cycle = (outputs: string[], first = 0) => outputs.flatMap((output, i) => [run(output), edit(first + i)]);
    const alternating = Array.from({ length: 6 }, (_, i) => (i % 2 ? attribute : syntax));
    expect(severity(decideOn([...cycle(alternating), run()]), "no_progress")).toBe("block");
    // Each run fails somewhere new: the edits are moving the problem on.
    const moving = Array.from({ length: 6 }, (_, i) => failure(`NameError: name 'field_${i}' is not defined`));
    expect(severity(decideOn([...cycle(moving), run()]), "no_progress")).toBe("none");
    // A pass between them starts afresh: the same two failures after it are news again.
    const recovered = [...cycle([syntax, attribute, syntax]), run("OK (12 tests)"), edit(9), ...cycle([attribute, syntax], 10), run()];
    expect(severity(decideOn(recovered), "no_progress")).toBe("none");
  });

  it.each([
    ["pytest's summary", "collected 12 items\n\ntests/test_a.py ..F\n=== 1 failed, 11 passed in 0.84s ==="],
    ["a FAILED line", "running 3 tests\nFAILED tests/test_a.py::test_x - KeyError"],
    ["go test", "=== RUN   TestParse\n--- FAIL: TestParse (0.00s)\nFAIL\tgithub.com/acme/parse\t0.012s"],
    ["cargo test", "running 4 tests\ntest parse ... FAILED\n\ntest result: FAILED. 3 passed; 1 failed; 0 ignored"],
    ["mocha", "  3 passing (12ms)\n  1 failing"],
    ["bun test", "✗ SessionDB > migrate [2.60ms]\n\n 7 pass\n 3 fail\n 14 expect() calls\nRan 10 tests across 1 files. [149.00ms]"],
    ["node:test", "# tests 10\n# suites 2\n# pass 7\n# fail 3\n# cancelled 0"],
    ["tsc", "src/api/orders.ts(42,18): error TS2339: Property 'customerId' does not exist on type 'Order'.\n\nFound 1 error in src/api/orders.ts:42"],
    ["gcc", "main.c: In function 'main':\nmain.c:3:5: error: unknown type name 'foo'"],
    ["rustc's short format", "src/window.rs:16:8: error[E0405]: cannot find trait `Target` in this scope"],
    ["an ssh refusal a harness fenced as code", "```\nroot@db-1: Permission denied (publickey).\n```"],
    ["a program naming itself before its failure", "ssh: Could not resolve hostname db-1: Name or service not known"],
    ["mypy", "app/models.py:12: error: Incompatible return value type (got \"str\", expected \"int\")  [return-value]\nFound 1 error in 1 file (checked 8 source files)"],
  ])("reads %s as a failing run", (_label, output) => {
    expect(summarizeOutcome({ output }).kind).toBe("error");
  });

  it.each([
    ["a passing pytest run", "collected 12 items\n\ntests/test_a.py ............\n=== 12 passed in 0.84s ==="],
    ["no failures", "12 passed, 0 failed"],
    ["a passing bun run", " 10 pass\n 0 fail\n 14 expect() calls\nRan 10 tests across 1 files."],
    ["a passing node:test run", "# tests 10\n# pass 10\n# fail 0"],
    ["a fenced success", "```\nroot@db-1: Deployed 3 services.\n```"],
    ["a grep hit on a line that handles errors", "src/log.ts:12:  logger.error(`request failed: ${err}`);\nsrc/log.ts:30:  // error: keep the message"],
  ])("reads %s as a success", (_label, output) => {
    expect(summarizeOutcome({ output }).kind).toBe("ok");
  });

  it("stops the third identical attempt after two permanent failures", () => {
    const missing = { tool: "get_customer", args: { id: "cus_9" }, result: { error: "No such customer: cus_9", status: 404 } };
    expect(blocked([missing, missing, { tool: missing.tool, args: missing.args }])).toBe(true);
    const invalid = { tool: "create_issue", args: { title: "" }, error: "ValidationError: title must not be empty" };
    expect(blocked([invalid, invalid, { tool: invalid.tool, args: invalid.args }])).toBe(true);
  });
});

describe("polling is judged by time as well as count", () => {
  const status = (at: number, state = "running"): CallSpec => ({ tool: "get_job", args: { job_id: "exp-17" }, result: { id: "exp-17", status: state, progress: 40 }, at });

  it("lets a job that takes a few minutes be polled every few seconds", () => {
    const polls = Array.from({ length: 36 }, (_, i) => status(i * 5));
    expect(blocked([...polls, { tool: "get_job", args: { job_id: "exp-17" }, at: 36 * 5 }])).toBe(false);
  });

  it("stops a poll whose status has not moved past the time budget (five minutes, or twenty intervals)", () => {
    const polls = Array.from({ length: 31 }, (_, i) => status(i * 10));
    expect(findingOf(decideOn([...polls, { tool: "get_job", args: { job_id: "exp-17" }, at: 31 * 10 }]), "stuck_poll")?.severity).toBe("block");
    // Every 30 s: the budget is twenty intervals (ten minutes), so the poll at 9.5 min runs and the one at 10 min does not.
    const slow = Array.from({ length: 19 }, (_, i) => status(i * 30));
    expect(severity(decideOn([...slow, { tool: "get_job", args: { job_id: "exp-17" }, at: 19 * 30 }]), "stuck_poll")).not.toBe("block");
    expect(severity(decideOn([...slow, status(570), { tool: "get_job", args: { job_id: "exp-17" }, at: 20 * 30 }]), "stuck_poll")).toBe("block");
  });

  it("counts the wait a poll asks for: long waits get more time, but not forever", () => {
    const waited = (n: number) =>
      Array.from({ length: n }, (_, i): CallSpec => ({ tool: "wait_for_run", args: { run_id: "r1", wait_seconds: 60 }, result: { run_id: "r1", state: "queued" }, at: i * 5 }));
    expect(blocked(waited(12))).toBe(false);
    expect(severity(decideOn(waited(24)), "stuck_poll")).toBe("block");
  });

  it("judges a command runner by what it returns: `sleep 30 && gh run view` is a poll", () => {
    const ci = (i: number): CallSpec => ({ tool: "bash", args: { command: "sleep 30 && gh run view 9125 --json status" }, result: '{"status":"in_progress"}', at: i * 32 });
    expect(blocked(Array.from({ length: 17 }, (_, i) => ci(i)))).toBe(false);
    const ls = (i: number): CallSpec => ({ tool: "bash", args: { command: "ls build/" }, result: "app.js\napp.css", at: i * 5 });
    expect(blocked([ls(0), ls(1), ls(2), { tool: "bash", args: { command: "ls build/" }, at: 15 }])).toBe(true);
  });

  it("reads an unfinished state where tools say it: a status column, a list of records, a state written in CamelCase", () => {
    const pods = (state: string) => `NAME                   READY   STATUS\napi-7d9c6b5f4-x2kqp    0/1     ${state}`;
    expect(summarizeOutcome({ output: pods("ContainerCreating") }).inProgress).toBe(true);
    expect(summarizeOutcome({ output: pods("Completed") }).inProgress).toBeUndefined();
    // Single-spaced columns are found by word count.
    expect(summarizeOutcome({ output: "NAME READY STATUS\napi-7c9d-x2 0/1 Running (readiness probe pending)" }).inProgress).toBe(true);
    expect(summarizeOutcome({ output: { agents: [{ id: "research-1", status: "running" }, { id: "lint-2", status: "done" }] } }).inProgress).toBe(true);
    expect(summarizeOutcome({ output: { agents: [{ id: "lint-2", status: "done" }] } }).inProgress).toBeUndefined();
    expect(summarizeOutcome({ output: "Process running with session ID 3" }).inProgress).toBe(true);
    // A headerless table (`gh pr checks`) with a state cell.
    expect(summarizeOutcome({ output: "lint\tpass\t38s\thttps://ci/1\ntest\tpending\t0\thttps://ci/2" }).inProgress).toBe(true);
    expect(summarizeOutcome({ output: "lint\tpass\t38s\thttps://ci/1\ntest\tpass\t4m12s\thttps://ci/2" }).inProgress).toBeUndefined();
    expect(summarizeOutcome({ output: { phase: "Terminating" } }).inProgress).toBe(true);
    // A state of several words joined by underscores, as CloudFormation writes them.
    expect(summarizeOutcome({ output: { StackStatus: "CREATE_IN_PROGRESS" } }).inProgress).toBe(true);
    expect(summarizeOutcome({ output: "Waiting for stack web-prod: current status 'UPDATE_IN_PROGRESS'" }).inProgress).toBe(true);
    expect(summarizeOutcome({ output: { StackStatus: "CREATE_COMPLETE" } }).inProgress).toBeUndefined();
    // `kubectl rollout status` says what it waits on; once done it says so.
    expect(summarizeOutcome({ output: 'Waiting for deployment "chime" rollout to finish: 8 out of 15 new replicas have been updated...' }).inProgress).toBe(true);
    expect(summarizeOutcome({ output: 'deployment "chime" successfully rolled out' }).inProgress).toBeUndefined();
    expect(summarizeOutcome({ output: "No longer waiting for the lock: acquired" }).inProgress).toBeUndefined();
    // -ing words that name a condition, not a state under way.
    expect(summarizeOutcome({ output: { status: "missing" } }).inProgress).toBeUndefined();
    expect(summarizeOutcome({ output: "Warning: deprecated flag" }).inProgress).toBeUndefined();
  });

  it("lets a pod be polled every ten seconds while it is created, and stops it once the budget is spent", () => {
    const get = (at: number, state = "ContainerCreating"): CallSpec => ({ tool: "terminal", args: { command: "kubectl get pods -l app=api" }, result: `NAME    READY   STATUS\napi-x   0/1     ${state}`, at });
    expect(blocked([get(0), get(10), get(20), get(30), { tool: "terminal", args: { command: "kubectl get pods -l app=api" }, at: 40 }])).toBe(false);
    const stuck = Array.from({ length: 31 }, (_, i) => get(i * 10));
    expect(severity(decideOn([...stuck, { tool: "terminal", args: { command: "kubectl get pods -l app=api" }, at: 310 }]), "stuck_poll")).toBe("block");
  });

  it("keeps a poll a poll through a transient failure and through a status command's exit code", () => {
    // Recorded shape (cybersemics/em): `gh pr checks` polled while CI runs, one poll hitting a GraphQL i/o timeout.
    const checks = (at: number, result?: string): CallSpec => ({ tool: "bash", args: { command: "gh pr checks 5053" }, ...(result === undefined ? {} : { result }), at });
    const pending = "Some checks are still pending\nTest\tpending\t0\thttps://github.com/o/r/actions/runs/1";
    const timeout: CallSpec = { tool: "bash", args: { command: "gh pr checks 5053" }, error: 'Post "https://api.github.com/graphql": dial tcp 140.82.114.5:443: i/o timeout', at: 225 };
    expect(blocked([checks(0, pending), checks(75, pending), checks(150, pending), timeout, checks(300, pending), checks(375)])).toBe(false);
    // A permanent failure between polls is no interruption: the same answers around it are repeats again.
    const denied: CallSpec = { ...timeout, error: "HTTP 401: Bad credentials" };
    expect(blocked([checks(0, pending), checks(75, pending), denied, checks(300, pending), checks(375)])).toBe(true);
    // `gh pr checks` exits 8 while checks are pending: beside a pending state the exit code reports it, not a failure.
    expect(summarizeOutcome({ output: "test\tpending\t0\thttps://ci/1\n(exit status 8)" })).toMatchObject({ kind: "ok", inProgress: true });
    expect(summarizeOutcome({ output: { stdout: "deploy: in_progress", exitCode: 3 } })).toMatchObject({ kind: "ok", inProgress: true });
    // Without a state still under way, a non-zero exit is a failure.
    expect(summarizeOutcome({ output: "test\tfail\t12s\thttps://ci/1\n(exit status 1)" }).kind).toBe("error");
    expect(summarizeOutcome({ output: { stdout: "", exitCode: 2 } }).kind).toBe("error");
  });

  it("reads empty answers about work left running as a poll's: Codex's write_stdin to a running session", () => {
    // Recorded shape (weave-router): exec_command leaves a process running; write_stdin with no input polls it.
    const launch: CallSpec = { tool: "exec_command", args: { cmd: "cargo test --workspace" }, result: "Process running with session ID 3", at: 0 };
    const stdin = (session: number, at: number, result?: string): CallSpec => ({ tool: "write_stdin", args: { session_id: session, chars: "" }, ...(result === undefined ? {} : { result }), at });
    const quiet = Array.from({ length: 5 }, (_, i) => stdin(3, 10 + i * 10, ""));
    expect(blocked([launch, ...quiet, stdin(3, 60)])).toBe(false);
    // Judged by time: empty for more than five minutes, it is stuck.
    const hung = Array.from({ length: 32 }, (_, i) => stdin(3, 10 + i * 10, ""));
    expect(severity(decideOn([launch, ...hung, stdin(3, 330)]), "stuck_poll")).toBe("block");
    // A session nothing left running is no poll: its empty answers are misses (the first, a write's, excepted).
    const other = [stdin(7, 10, ""), stdin(7, 20, ""), stdin(7, 30, ""), stdin(7, 40)];
    expect(blocked([launch, ...other])).toBe(true);
    expect(blocked([launch, ...quiet, stdin(3, 60)].map((c) => (c.tool === "write_stdin" ? { ...c, args: { session_id: 7, chars: "" } } : c)))).toBe(true);
  });

  it("reads a wait's empty output as time passed, not a miss: a moving poll taken in turn with `sleep 5` runs on", () => {
    const read = (i: number): CallSpec => ({ tool: "read_output", args: { handle: "proc-5" }, result: `[${i * 5}s] compiling step ${i}` });
    const nap = (result?: string): CallSpec => ({ tool: "bash", args: { cmd: "sleep 5" }, ...(result === undefined ? {} : { result }) });
    const rounds = Array.from({ length: 5 }, (_, i) => [read(i), nap("")]).flat();
    expect(blocked([...rounds, read(5), nap()])).toBe(false);
    // Waiting over and over with nothing looked at in between is still a repeat that brings nothing new.
    expect(blocked([nap(""), nap(""), nap(""), nap()])).toBe(true);
    // An empty answer from a call that does not only wait is still a miss.
    const grep = (result?: string): CallSpec => ({ tool: "bash", args: { cmd: "grep -rn retry_after src/" }, ...(result === undefined ? {} : { result }) });
    expect(blocked([read(0), grep(""), read(1), grep(""), read(2), grep()])).toBe(true);
  });
});

describe("identifier variants and rewordings are one request", () => {
  const order = (id: string, out?: string): CallSpec => ({ tool: "get_order", args: { order_id: id }, ...(out ? { out } : {}) });

  it("stops variants of one order id that keep missing", () => {
    expect(findingOf(decideOn([order("ORD-42", "empty"), order("ord_42", "empty"), order("ORD 0042")]), "semantic_stutter")?.severity).toBe("block");
  });

  it("lets different order ids through, each missing", () => {
    expect(blocked([order("ORD-42", "empty"), order("ORD-43", "empty"), order("ORD-44")])).toBe(false);
  });

  it("stops a reworded search that keeps coming back empty, and spares a search for another place", () => {
    const search = (query: string, out?: string): CallSpec => ({ tool: "web_search", args: { query }, ...(out ? { out } : {}) });
    expect(blocked([search("weather in Paris today", "empty"), search("Paris weather today?", "empty"), search("today's weather, Paris")])).toBe(true);
    expect(blocked([search("weather in Paris", "empty"), search("weather in Lyon", "empty"), search("weather in Nice")])).toBe(false);
  });

  it("reads rewordings with words added or dropped as one request once the answers show it: the same answer each time", () => {
    // Recorded shape (illospace): the same team-activity read, the query reworded every time, the same answer.
    const read = (query: string, result?: string): CallSpec => ({
      tool: "read_team_activity",
      args: { query, sources: ["threads", "cycles"], window: "2026-W32" },
      ...(result === undefined ? {} : { result }),
    });
    const answer = '{"window":"2026-W32","threads":[{"title":"Q3 planning","replies":14}],"cycles":[{"name":"Cycle 18","completed":9}]}';
    const reworded = [
      read("Promotion readiness workspace evidence during the scheduled review window", answer),
      read("Evidence of promotion readiness in the workspace for the scheduled review window", answer),
      read("Promotion readiness workspace evidence in the scheduled review window, including thread activity", answer),
      read("Workspace promotion readiness evidence within the scheduled review window", answer),
    ];
    expect(blocked([...reworded, read("Promotion readiness evidence for the workspace during the review window")])).toBe(true);
    // The same rewordings, each answered with something new: refining a query is work.
    const refined = reworded.map((call, i) => ({ ...call, result: answer.replace("14", String(20 + i)) }));
    expect(blocked([...refined, read("Promotion readiness evidence for the workspace during the review window")])).toBe(false);
    // Another subject is another request, whatever the answer.
    const other = [read("Hiring pipeline status for the design team", answer), read("Office move logistics for the Berlin site", answer), read("Budget variance for marketing in Q3", answer)];
    expect(blocked([...other, read("Customer escalations opened this month")])).toBe(false);
  });

  it("reads the same command with other prose beside it as one request once the answers show it: the same answer each time", () => {
    // Shape of hackerai's terminal tool: a "brief" for the user changes with every call, the scan does not.
    const scan = "Nmap scan report for 10.10.14.7\nPORT     STATE    SERVICE\n80/tcp   filtered http\n443/tcp  filtered https";
    const run = (brief: string, result?: string): CallSpec => ({
      tool: "run_terminal_cmd",
      args: { command: "nmap -Pn -p 80,443 10.10.14.7", brief, is_background: false },
      ...(result === undefined ? {} : { result }),
    });
    const briefs = ["Scanning web ports", "Re-checking web ports", "Verifying filtered ports"];
    expect(blocked([...briefs.map((b) => run(b, scan)), run("Final port check")])).toBe(true);
    // The same scan, its ports opening: each answer is news, whatever the brief says.
    const opening = ["filtered", "open", "closed"].map((state, i) => run(briefs[i]!, scan.replace("80/tcp   filtered", `80/tcp   ${state}`)));
    expect(blocked([...opening, run("Final port check")])).toBe(false);
  });

  it("does not read prose beside a change, or a send that made a new message each time, as commentary", () => {
    // A file written with other contents each time is acknowledged alike: the answer says nothing about the prose.
    const write = (content: string, result?: string): CallSpec => ({ tool: "write_file", args: { path: "notes/plan.md", content }, ...(result === undefined ? {} : { result }) });
    const drafts = ["Draft the plan for the launch", "Plan the launch with the design team", "Launch plan with owners and dates"];
    expect(blocked([...drafts.map((d) => write(d, "Wrote notes/plan.md")), write("Final launch plan")])).toBe(false);
    // Distinct messages to one chat, each given a fresh message id.
    const send = (text: string, id?: string): CallSpec => ({ tool: "message", args: { action: "deliver", target: "feishu:oc_chat", text }, ...(id === undefined ? {} : { result: { ok: true, messageId: id } }) });
    const lines = ["line one here", "line two here", "line three here"].map((t, i) => send(t, `om_x100b5${i}f2a9c0d8e7b6a5`));
    expect(blocked([...lines, send("line final here")])).toBe(false);
  });

  it("compares command lines as code: a long shared `cd <path> &&` prefix does not make different commands one request", () => {
    const dir = "cd /Users/dev/Library/CloudStorage/OneDrive-Acme/Documents/Projects/Personal/go-clean-arch";
    const sh = (command: string, result?: string): CallSpec => ({ tool: "execute_terminal_command", args: { command: `${dir} && ${command}` }, ...(result === undefined ? {} : { result }) });
    const steps = [sh("go mod tidy", "go: go.mod file not found in current directory or any parent directory"), sh("dep ensure", "/bin/sh: dep: command not found"), sh("ls -la | grep vendor", "")];
    expect(blocked([...steps, sh("cat Makefile")])).toBe(false);
    // The same command reworded only in its spacing is still the same command.
    const same = [sh("go mod tidy", "go: go.mod file not found"), sh("go  mod tidy", "go: go.mod file not found")];
    expect(blocked([...same, sh("go mod  tidy")])).toBe(true);
    // Without a chain or a pipe too: two greps for different names in files under one long path are two requests.
    const root = "/home/ubuntu/ISO-Bench/state/runs/sglang/trae/gpt-5/2025-12-23_04-37-32/sglang_038_6b231325/python/sglang/srt";
    const grep = (pattern: string, file: string): CallSpec => ({ tool: "bash", args: { command: `grep -n "${pattern}" ${root}/${file}` }, result: "" });
    const greps = [grep("padded_static_len", "model_executor/cuda_graph_runner.py"), grep("gathered_buffer = torch.zeros", "model_executor/forward_batch_info.py")];
    expect(severity(decideOn([...greps, { tool: "bash", args: { command: `grep -n "gathered_buffer =" ${root}/model_executor/forward_batch_info.py` } }]), "semantic_stutter")).not.toBe("block");
  });
});

describe("empty answers and answers with empty parts", () => {
  it("reads an envelope with nothing in it as empty, and content beside an empty list as an answer", () => {
    expect(summarizeOutcome({ output: { startAt: 0, maxResults: 20, total: 0, issues: [] } }).kind).toBe("empty");
    expect(summarizeOutcome({ output: { results: [], has_more: false, next_cursor: null, took_ms: 12 } }).kind).toBe("empty");
    // A harness's tagged envelope: empty when nothing but the exit status is inside.
    expect(summarizeOutcome({ output: "<returncode>0</returncode>\n<output>\n</output>" }).kind).toBe("empty");
    expect(summarizeOutcome({ output: "<returncode>1</returncode>\n<output>\n</output>" }).kind).toBe("empty");
    expect(summarizeOutcome({ output: "<returncode>0</returncode>\n<output>\nsphinx/ext/autodoc/__init__.py:320: return attrgetter\n</output>" }).kind).toBe("ok");
    expect(summarizeOutcome({ output: "<returncode>0</returncode>\n<output>\n</output>\nDone: 3 files written" }).kind).toBe("ok");
    const thought = (n: number, history: number) => ({ thoughtNumber: n, totalThoughts: 8, nextThoughtNeeded: true, branches: [], thoughtHistoryLength: history });
    expect(summarizeOutcome({ output: JSON.stringify(thought(3, 3)) }).kind).toBe("ok");
    // A history that grows with every call is a counter: the same thought again is the same answer.
    expect(summarizeOutcome({ output: thought(1, 1) }).fingerprint).toBe(summarizeOutcome({ output: thought(1, 2) }).fingerprint);
    expect(summarizeOutcome({ output: thought(1, 1) }).fingerprint).not.toBe(summarizeOutcome({ output: thought(2, 2) }).fingerprint);
  });
});

describe("what a harness prints around the result", () => {
  const meter = (sent: number, used: number) =>
    `You have sent ${sent} messages and have used up $${used.toFixed(4)}. You have $${(1 - used).toFixed(4)} remaining.\n\nCommand parsing failed.\nRemember to include one and only one command in your reply.`;

  it("reads a meter of what was used or is left as no part of the answer, and the failure below it as the answer", () => {
    const first = summarizeOutcome({ output: meter(93, 0.397) });
    const next = summarizeOutcome({ output: meter(94, 0.4031) });
    expect(first.kind).toBe("error");
    expect(next.fingerprint).toBe(first.fingerprint);
    // A different answer under the same meter is news.
    expect(summarizeOutcome({ output: meter(95, 0.41).replace("Command parsing failed.", "Speedup: 1.8x over the reference") }).fingerprint).not.toBe(first.fingerprint);
  });

  it("stops an identical command the harness keeps refusing under a running meter", () => {
    const view = (n: number): CallSpec => ({ tool: "view_file", args: { command: "view_file solver.py" }, result: meter(100 + n, 0.4 + n / 100) });
    expect(blocked([view(0), view(1), view(2), { tool: "view_file", args: { command: "view_file solver.py" } }])).toBe(true);
  });

  it("reads a negated state as no work in progress, and a stated one as a poll", () => {
    expect(isInProgress("No running shell found. Start one with exec_command.")).toBe(false);
    expect(isInProgress("Nothing pending in the queue.")).toBe(false);
    expect(isInProgress("Process running with session ID 3")).toBe(true);
  });

  it("reads an envelope whose content is blank beside its status and ids as empty, and one with content as an answer", () => {
    expect(summarizeOutcome({ output: { session_id: "s-7", output: "" } }).kind).toBe("empty");
    expect(summarizeOutcome({ output: "Status Code: 0\nResponse: " }).kind).toBe("empty");
    expect(summarizeOutcome({ output: "Status Code: 0\nResponse: CONTAINER ID   IMAGE   STATUS" }).kind).toBe("ok");
    expect(summarizeOutcome({ output: { session_id: "s-7", output: "total 8\ndrwxr-xr-x 2 root root" } }).kind).toBe("ok");
    // A record with an id and a filled field is content, even with another field blank.
    expect(summarizeOutcome({ output: { id: "doc-1", title: "Q3 plan", summary: "" } }).kind).toBe("ok");
  });
});

describe("a search's zero count, however its envelope is rendered", () => {
  // A code search as a Cursor session export renders it: its status around one JSON block that echoes the request.
  const rendered = (pattern: string, matches: number) =>
    `Additional data:\n\n\`\`\`json\n${JSON.stringify({ isPruned: true, outputMode: "content", path: "data/staging.csv", pattern, topFiles: matches ? [{ uri: "data/staging.csv", matchCount: matches }] : [], totalFiles: matches ? 1 : 0, totalMatches: matches }, null, 2)}\n\`\`\`\nStatus: **completed**`;

  it("reads every list empty beside a zero count as empty, whatever else the envelope echoes, and a count above zero as an answer", () => {
    expect(summarizeOutcome({ output: { pattern: "28628", isPruned: true, topFiles: [], totalMatches: 0 } }).kind).toBe("empty");
    expect(summarizeOutcome({ output: { pattern: "28628", isPruned: true, topFiles: [{ uri: "a.csv" }], totalMatches: 3 } }).kind).toBe("ok");
    // An empty part beside content and no count of what was found stays an answer.
    expect(summarizeOutcome({ output: { title: "Q3 plan", owner: "ana", attachments: [] } }).kind).toBe("ok");
  });

  it("reads the JSON block a markdown rendering wraps as the result", () => {
    expect(summarizeOutcome({ output: rendered("28628", 0) }).kind).toBe("empty");
    expect(summarizeOutcome({ output: rendered("28628", 2) }).kind).toBe("ok");
    // A block that is not JSON leaves the text whole: the words around it still count.
    const broken = (status: string) => summarizeOutcome({ output: `Additional data:\n\`\`\`json\n{"totalMatches": \n\`\`\`\nStatus: **${status}**` }).fingerprint;
    expect(broken("completed")).not.toBe(broken("cancelled"));
    // Prose that quotes JSON among much else is prose.
    expect(summarizeOutcome({ output: `The API answers like this:\n\`\`\`json\n{"items": [], "count": 0}\n\`\`\`\n${"and the client goes on to read the next page of the feed. ".repeat(3)}` }).kind).toBe("ok");
  });

  it("stops a search re-aimed at file after file that keeps finding nothing", () => {
    const search = (path: string, matches = 0): CallSpec => ({ tool: "ripgrep_raw_search", args: { pattern: "28628", path }, result: rendered("28628", matches).replace("data/staging.csv", path) });
    const files = ["staging/form_95.csv", "canonical/merged.csv", "raw/page_1.json", "raw/page_2.json", "raw/page_3.json", "raw/page_4.json"];
    const misses = files.slice(0, 5).map((f) => search(f));
    expect(severity(decideOn([...misses, { tool: "ripgrep_raw_search", args: { pattern: "28628", path: files[5] } }]), "flailing")).toBe("block");
    // The same searches with one that finds the record are a search that worked.
    expect(severity(decideOn([...misses.slice(0, 4), search("raw/page_3.json", 1), { tool: "ripgrep_raw_search", args: { pattern: "28628", path: files[5] } }]), "flailing")).toBe("none");
  });
});

describe("flailing", () => {
  const jql = (q: string, out = "empty"): CallSpec => ({ tool: "jira_search", args: { jql: q }, out });
  const queries = ["summary ~ refund", "text ~ timeout", "labels = payments", "component = Billing", "project = PAY", "status = Open"];

  it("judges a run's first calls under the lowest levels an operator may set, without failing", () => {
    const strict = { detectors: { flailing: { warn: 1, block: 2 } } };
    expect(severity(decideOn([{ tool: "jira_search", args: { jql: queries[0]! } }], { policy: strict }), "flailing")).toBe("none");
    expect(severity(decideOn([jql(queries[0]!), { tool: "jira_search", args: { jql: queries[1]! } }], { policy: strict }), "flailing")).toBe("block");
  });

  it("stops many different queries to one tool that all come back empty", () => {
    const decision = decideOn([...queries.slice(0, 5).map((q) => jql(q)), { tool: "jira_search", args: { jql: queries[5] } }]);
    expect(findingOf(decision, "flailing")).toMatchObject({ severity: "block", count: 6 });
  });

  it("reads misses that each say something different as answers: an API's error paths tried one by one", () => {
    const curl = (path: string, answer: object): CallSpec => ({ tool: "bash", args: { command: `curl -s localhost:3000${path}` }, result: { success: false, error: answer } });
    const probes = [
      curl("/api/tasks/9 -X PUT", { code: "BAD_REQUEST", message: "Invalid JSON in request body" }),
      curl("/api/tasks/9 -X DELETE", { code: "NOT_FOUND", message: "Task not found" }),
      curl("/api/auth/register -d bad-email", { code: "VALIDATION_ERROR", message: "Name must be between 2 and 100 characters" }),
      curl("/api/auth/login -d nobody", { code: "UNAUTHORIZED", message: "Invalid email or password" }),
      curl("/api/auth/register -d taken", { code: "CONFLICT", message: "Email already registered" }),
    ];
    expect(severity(decideOn([...probes, { tool: "bash", args: { command: "curl -s localhost:3000/api/health" } }]), "flailing")).toBe("none");
    // Guessing gets the same miss back, whatever the guess.
    const guess = (id: string): CallSpec => ({ tool: "get_chapter", args: { chapter_id: id }, error: `Error executing tool get_chapter: ${id} not found in TOC.` });
    const guesses = ["text/part0016.html", "text/part0019.html", "text/part0020.html", "text/part0016_split_000.html", "text/part0019_split_000.html"].map(guess);
    expect(severity(decideOn([...guesses, { tool: "get_chapter", args: { chapter_id: "text/part0021.html" } }]), "flailing")).toBe("block");
  });

  it("counts a shell's searches apart from its reads: reads between missing greps do not reset them, a grep that hits does", () => {
    const grep = (pattern: string, path: string, result = "<returncode>1</returncode>\n<output>\n</output>"): CallSpec => ({ tool: "bash", args: { command: `grep -RIn "${pattern}" ${path}` }, result });
    const read = (path: string): CallSpec => ({ tool: "bash", args: { command: `sed -n '1,200p' ${path}` }, result: `<returncode>0</returncode>\n<output>\nclass Documenter:  # ${path}\n</output>` });
    const searches = ["inherited-members", "special_members", "get_class_members", "autodoc_inherit", "filter_members", "is_filtered_inherited"];
    const misses = searches.slice(0, 5).flatMap((p, i) => [grep(p, "sphinx/ext/autodoc"), read(`sphinx/ext/autodoc/part${i}.py`)]);
    const next: CallSpec = { tool: "bash", args: { command: `grep -RIn "${searches[5]}" sphinx/ext/autodoc` } };
    expect(severity(decideOn([...misses, next]), "flailing")).toBe("block");
    // One grep that finds something ends the misses, reads or not.
    const hit = grep("def filter_members", "sphinx/ext/autodoc", "<returncode>0</returncode>\n<output>\nsphinx/ext/autodoc/__init__.py:559: def filter_members(\n</output>");
    expect(severity(decideOn([...misses.slice(0, 6), hit, ...misses.slice(6), next]), "flailing")).toBe("none");
  });

  it("lets a sweep run on: one grep over many files misses on most, after hitting on one", () => {
    const grep = (file: string, result = ""): CallSpec => ({ tool: "shell", args: { command: `grep -n 'time.Sleep' daemon/${file}_test.go || true` }, result });
    const files = ["core", "lifecycle", "errors", "io", "config", "timeout", "replay", "session", "limits"];
    const sweep = [grep("concurrency", "43:\ttime.Sleep(200 * time.Millisecond)"), ...files.slice(0, 8).map((f) => grep(f))];
    expect(severity(decideOn([...sweep, { tool: "shell", args: { command: `grep -n 'time.Sleep' daemon/${files[8]}_test.go || true` } }]), "flailing")).toBe("none");
    // Without a hit on any target the same shape is guessing.
    const guesses = files.slice(0, 6).map((f) => grep(f));
    expect(severity(decideOn([...guesses, { tool: "shell", args: { command: "grep -n 'time.Sleep' daemon/x_test.go || true" } }]), "flailing")).toBe("block");
  });

  it("lets a search walk the calendar day by day before it finds anything, and still stops guessed ids", () => {
    const day = (date: string, result: unknown = []): CallSpec => ({ tool: "search_direct_flight", args: { origin: "JFK", destination: "ORD", date }, result });
    const days = Array.from({ length: 9 }, (_, i) => `2024-05-${String(i + 1).padStart(2, "0")}`);
    expect(severity(decideOn([...days.slice(0, 8).map((d) => day(d)), { tool: "search_direct_flight", args: day(days[8]!).args }]), "flailing")).toBe("none");
    // The same template over guessed reservation ids, nothing found yet, is guessing.
    const lookup = (id: string): CallSpec => ({ tool: "get_reservation", args: { reservation_id: id }, error: "Reservation not found" });
    const guesses = ["4WQ150", "4WQ15O", "4WQ151", "AWQ150", "4WQ1S0", "4VQ150"].map(lookup);
    expect(severity(decideOn([...guesses, { tool: "get_reservation", args: { reservation_id: "4WQ105" } }]), "flailing")).toBe("block");
  });

  it("lets distinct lookups that each miss a few times through", () => {
    const crm = (name: string, out = "empty"): CallSpec => ({ tool: "crm_find", args: { name }, out });
    const specs = [crm("Nordwind GmbH"), crm("Nordwind Handels", "hit-1"), crm("Kestrel"), crm("Kestrel Laboratories"), crm("Kestrel Labs Inc", "hit-2"), crm("Ortega and Sons")];
    expect(blocked([...specs, { tool: "crm_find", args: { name: "Ortega & Sons Ltd" } }])).toBe(false);
  });
});

describe("commands that do no work", () => {
  const bash = (command: string, result?: string): CallSpec => ({ tool: "Bash", args: { command }, ...(result === undefined ? {} : { result }) });

  it("reads a command that only succeeds or prints its own words as a no-op, and one that reads, expands or writes as work", () => {
    for (const line of ["true", ":", "echo ok", "cmd /c echo marker1", 'bash -c "echo done"', "echo start; echo done", "printf 'wave A'"]) {
      expect(isNoOpCommand(line), line).toBe(true);
    }
    for (const line of ["echo $PATH", "echo ok > status.txt", "echo hi | wc -c", "echo $(date)", "ls", "echo start; npm test", "true && make"]) {
      expect(isNoOpCommand(line), line).toBe(false);
    }
  });

  it("stops a model stalling with no-op commands, answered or not", () => {
    const stalls = ["true", "echo launching-wave-A", "echo ok", "echo done", "echo final-check"].map((c) => bash(c, "Command executed successfully"));
    expect(findingOf(decideOn([...stalls, bash("echo LAST-ONE")]), "flailing")).toMatchObject({ severity: "block", count: 6 });
    // Recorded without results: a no-op's answer is known before it runs.
    const unanswered = [1, 2, 3, 4, 5].map((i) => bash(`echo marker${i}`));
    expect(severity(decideOn([...unanswered, bash("echo marker6")]), "flailing")).toBe("block");
  });

  it("lets the real step through after the stall, and echoes between real commands", () => {
    const stalls = ["true", "echo a", "echo b", "echo c", "echo d"].map((c) => bash(c, "Command executed successfully"));
    expect(severity(decideOn([...stalls, bash("./gradlew build")]), "flailing")).toBe("none");
    const work = [bash("echo '== build =='", "== build =="), bash("make", "ok"), bash("echo '== test =='", "== test =="), bash("make test", "ok"), bash("echo done", "done")];
    expect(severity(decideOn([...work, bash("echo bye")]), "flailing")).toBe("none");
  });
});

describe("the same message sent again in other words", () => {
  const policy = { policy: { tools: { send_whatsapp_message: { nature: "side_effecting" as const } } } };
  const send = (text: string, to = "+15550100", id?: number): CallSpec => ({
    tool: "send_whatsapp_message",
    args: { to, text },
    ...(id === undefined ? {} : { result: { message_id: `wamid.HBgL${id}QzVEMTk4`, status: "sent" } }),
  });

  it("stops a send that repeats an earlier one with a word added or dropped", () => {
    // Recorded shape (ChatbotX): two customer questions answered by seven sends covering the same ground.
    const sent = [send("Hello! Yes, the blue jacket is available in size M.", undefined, 1), send("Delivery takes 2-3 business days.", undefined, 2)];
    expect(findingOf(decideOn([...sent, send("Delivery usually takes 2-3 business days.")], policy), "semantic_stutter")?.severity).toBe("block");
  });

  it("lets distinct messages to one recipient through, and the same words to another recipient", () => {
    const sent = [send("Your order 4411 has shipped.", undefined, 1), send("Your refund for order 4411 is approved.", undefined, 2), send("Delivery takes 2-3 business days.", undefined, 3)];
    expect(blocked([...sent, send("Thanks for shopping with us, have a great day!")], policy)).toBe(false);
    expect(blocked([...sent, send("Your order 4412 has shipped.")], policy)).toBe(false);
    expect(blocked([...sent, send("Delivery usually takes 2-3 business days.", "+15550199")], policy)).toBe(false);
  });
});

describe("a change made again", () => {
  const write = (error?: string): CallSpec => ({ tool: "write", args: { filePath: "test.txt", content: "port = 8080" }, ...(error === undefined ? {} : { error }) });
  const read = (result: string): CallSpec => ({ tool: "read", args: { filePath: "test.txt" }, result });

  it("stops the same refused write sent again after reads that show nothing moved: looking is not changing", () => {
    // Recorded shape (opencode-cursor): a partial overwrite refused, the file re-read twice, the same write again.
    const calls = [write("refused: would reduce 100 lines to 1"), read("100 lines of config"), read("100 lines of config"), write("refused a partial overwrite of test.txt")];
    expect(blocked([...calls, write()])).toBe(true);
  });

  it("lets the same edit be retried once a read shows the file has moved, or after another change", () => {
    // The file changes out of band between attempts: each retry meets new content.
    const drifting = [write("content changed: v1"), read("v2"), write("content changed: v2"), read("v3"), write("content changed: v3"), read("v4")];
    expect(blocked([...drifting, write()])).toBe(false);
    // Another change in between (the file moved aside and back) gives the write a new world to act on.
    const mv = (command: string): CallSpec => ({ tool: "bash", args: { command }, result: "" });
    const changed = [write("refused: file is locked"), mv("rm -f test.txt.lock"), write("refused: file is read-only"), mv("chmod u+w test.txt")];
    expect(blocked([...changed, write()])).toBe(false);
  });
});

describe("automated continuation turns", () => {
  const failing = (run: string): CallSpec => ({ tool: "deploy", args: { service: "billing", ref: "v2.14" }, error: "manifest unknown", run });

  it("stops the same failing call brought back in turn after turn, at its own higher level", () => {
    const turns = ["r1", "r2", "r3"].map(failing);
    expect(severity(decideOn([...turns, { tool: "deploy", args: failing("r4").args, run: "r4" }]), "session_repeat")).toBe("block");
    expect(severity(decideOn([...turns.slice(0, 2), { tool: "deploy", args: failing("r3").args, run: "r3" }]), "session_repeat")).toBe("warn");
  });

  it("gives a failure that comes back after each fix tried in between one more turn, and stops it after that", () => {
    // tau2 telecom: the speed test fails, a setting is switched, the user is asked to test again.
    const test = (run: string): CallSpec => ({ tool: "run_speed_test", args: {}, result: "Speed test failed: No Connection.", run });
    const fix = (tool: string, run: string): CallSpec => ({ tool, args: {}, result: `${tool}: now ON`, run });
    const tried = [test("r1"), fix("toggle_data", "r2"), test("r2"), fix("enable_roaming", "r3"), test("r3"), fix("toggle_data_saver", "r4")];
    expect(severity(decideOn([...tried, { tool: "run_speed_test", args: {}, run: "r4" }]), "session_repeat")).toBe("warn");
    expect(severity(decideOn([...tried, test("r4"), fix("reboot_device", "r5"), { tool: "run_speed_test", args: {}, run: "r5" }]), "session_repeat")).toBe("block");
    // The same turns with only looks in between are the plain session repeat: the fourth turn is refused.
    const looked = tried.map((spec) => (spec.tool === "run_speed_test" ? spec : { ...spec, tool: "check_status_bar" }));
    expect(severity(decideOn([...looked, { tool: "run_speed_test", args: {}, run: "r4" }]), "session_repeat")).toBe("block");
  });

  it("lets a call that failed in earlier turns run again once it has worked", () => {
    const worked: CallSpec = { tool: "deploy", args: failing("r3").args, result: { status: "deployed" }, run: "r3" };
    expect(blocked([failing("r1"), failing("r2"), worked, { tool: "deploy", args: worked.args, run: "r4" }])).toBe(false);
  });
});
