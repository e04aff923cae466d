import { describe, expect, it } from "vitest";
import { failureCause } from "../../../breaker/failure-cause.js";
import { summarizeOutcome } from "../../../breaker/outcome.js";
import { decideOn, findingOf, severity, type CallSpec } from "../support/window.js";

// Shapes from recorded OpenCode and mini-swe-agent sessions: one failure reached through commands
// written differently each time, beside the legitimate runs that look like it.

const SYNTAX = `  File "src/agents/checking_agent.py", line 613\n    async def verify(self) -> Dict[str, Any]:\nSyntaxError: expected 'except' or 'finally' block`;
const TRACEBACK = `Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n  File "/usr/lib/python3.11/ast.py", line 50, in parse\n    return compile(source, filename, mode, flags,\n  File "<unknown>", line 613\nSyntaxError: expected 'except' or 'finally' block`;
const bash = (command: string, result: string): CallSpec => ({ tool: "bash", args: { command }, result });
const read = (offset: number): CallSpec => ({ tool: "read", args: { filePath: "src/agents/checking_agent.py", offset }, result: `<file>\n${offset}| line ${offset}\n</file>` });

describe("the cause a failing program states", () => {
  it("is the same line whichever command reported it", () => {
    expect(failureCause(SYNTAX)).toBe("SyntaxError: expected 'except' or 'finally' block");
    expect(failureCause(TRACEBACK)).toBe(failureCause(SYNTAX));
    expect(failureCause("src/window.rs:16:8: error[E0405]: cannot find trait `Target` in this scope")).toBe(
      failureCause("error[E0405]: cannot find trait `Target` in this scope\n  --> src/window.rs:16:8"),
    );
  });

  it("reads the message behind a logger's bracketed tags, in any language", () => {
    const missing = "ModuleNotFoundError: No module named 'flask'";
    expect(failureCause(`[错误] ${missing}`)).toBe(missing);
    expect(failureCause(`[2025-03-01 10:00:02] [ERROR] ${missing}`)).toBe(missing);
    // A tag alone is no cause, and another message behind the same tag is another cause.
    expect(failureCause("[ERROR] 1")).toBeUndefined();
    expect(failureCause("[ERROR] ModuleNotFoundError: No module named 'jinja2'")).not.toBe(missing);
  });

  it("reads an error Node printed in brackets as the cause it wraps, and a bracketed tag alone as none", () => {
    // `next build` in a recorded Claude Code session: "> Build error occurred\n[TypeError: generate is not a function]".
    const build = "> Build error occurred\n[TypeError: generate is not a function]\n\n> todo-app@0.1.0 build\n> next build";
    expect(failureCause(build)).toBe("TypeError: generate is not a function");
    expect(failureCause("[Error: ENOENT: no such file or directory, open 'app.json']")).toBe("Error: ENOENT: no such file or directory, open 'app.json'");
    expect(failureCause(build.replace("generate", "render"))).not.toBe(failureCause(build));
    expect(failureCause("[2025-03-01 10:00:02]")).toBeUndefined();
    expect(failureCause("[build started]")).toBeUndefined();
  });

  it("holds every failure the output names: a suite whose first failure stays while another is fixed has moved", () => {
    const suite = (...failed: string[]) => failed.map((t) => `FAILED tests/test_merge.py::${t} - AssertionError`).join("\n") + `\n${failed.length} failed, 9 passed`;
    expect(failureCause(suite("test_nested", "test_lists"))).not.toBe(failureCause(suite("test_nested")));
    expect(failureCause(suite("test_nested"))).toBe(failureCause(`collected 10 items\n${suite("test_nested")}`));
  });

  it("reads through a terminal's colours and the box terraform draws around a diagnostic", () => {
    // Cline's capture of `terraform plan` (colours kept) and the same failure printed plainly.
    const coloured = "Command failed with exit code 1.\nOutput:\n\u001b[31m╷\u001b[0m\u001b[0m\n\u001b[31m│\u001b[0m \u001b[0m\u001b[1m\u001b[31mError: \u001b[0m\u001b[0m\u001b[1mNo value for required variable\u001b[0m\n\u001b[31m╵\u001b[0m";
    const plain = "Command failed with exit code 1.\nOutput:\n╷\n│ Error: No value for required variable\n╵";
    expect(failureCause(plain)).toBe("Error: No value for required variable");
    const [a, b] = [coloured, plain].map((output) => summarizeOutcome({ output, args: { command: "terraform plan" } }));
    expect(a!.kind).toBe("error");
    expect(a!.fingerprint).toBe(b!.fingerprint);
    expect(a!.cause).toBeDefined();
    expect(a!.cause).toBe(b!.cause);
    // A colour around the first word does not hide a failure said first.
    expect(summarizeOutcome({ output: "\u001b[1;31merror:\u001b[0m could not compile `app` (bin \"app\") due to 2 previous errors" }).kind).toBe("error");
    expect(summarizeOutcome({ output: "\u001b[32m✓\u001b[0m 12 tests passed" }).kind).toBe("ok");
  });

  it("names the cause, not a bare verdict, and not the run's duration", () => {
    expect(failureCause("Error: 1")).toBeUndefined();
    expect(failureCause("exit status 1")).toBeUndefined();
    expect(failureCause("--- FAIL: TestParse (0.02s)")).toBe(failureCause("--- FAIL: TestParse (0.31s)"));
    expect(failureCause("E       AssertionError: assert 2 == 3")).toBe("AssertionError: assert 2 == 3");
  });

  it("is kept on the outcome as a hash, for failures only", () => {
    const failed = summarizeOutcome({ output: SYNTAX, args: { command: "python3 -m py_compile x.py" } });
    expect(failed.kind).toBe("error");
    expect(failed.cause).toBeDefined();
    expect(summarizeOutcome({ output: TRACEBACK }).cause).toBe(failed.cause);
    expect(summarizeOutcome({ output: "SyntaxError: invalid syntax" }).cause).not.toBe(failed.cause);
    expect(summarizeOutcome({ output: "Checked 3 files; the old log mentions SyntaxError: expected 'except' once." }).cause).toBeUndefined();
  });
});

describe("same_failure", () => {
  // The recorded run: py_compile, py_compile | head, poetry run py_compile, ast.parse; reads between.
  const rechecks: CallSpec[] = [
    bash("python3 -m py_compile src/agents/checking_agent.py 2>&1", SYNTAX),
    read(608),
    bash('grep -n "def " src/agents/checking_agent.py | tail -20', "454:    async def validate(self):\n487:    async def test_db(self):"),
    bash("python3 -m py_compile src/agents/checking_agent.py 2>&1 | head -20", SYNTAX),
    read(595),
    bash("poetry run python3 -m py_compile src/agents/*.py 2>&1 | head -50", SYNTAX),
    bash(`python3 -c "import ast; ast.parse(open('src/agents/checking_agent.py').read())" 2>&1 | head -30`, TRACEBACK),
  ];

  it("stops the fifth run of a check that reported one cause four times, however it was written", () => {
    const decision = decideOn([...rechecks, bash("awk '600<=NR && NR<=613' src/agents/checking_agent.py", "")]);
    expect(findingOf(decision, "same_failure")).toMatchObject({ severity: "block", count: 5, steps: [1, 4, 6, 7, 8] });
    expect(severity(decideOn([...rechecks.slice(0, 6), bash("python3 -c 'import ast'", "")]), "same_failure")).toBe("warn");
  });

  it("reads a SQL statement as a program: rewritten queries failing on one missing column are one failure", () => {
    const binder = "BinderException: Binder Error: Referenced column \"type\" not found in FROM clause!";
    const sql = (statement: string, error?: string): CallSpec => ({ tool: "run_query", args: { sql: statement }, ...(error ? { error } : {}) });
    const rewrites = [
      sql("SELECT a.type, count(*) FROM alert a GROUP BY 1", binder),
      sql("SELECT alert.type AS t, count(*) AS n FROM alert GROUP BY t ORDER BY n DESC", binder),
      sql("SELECT alert.type, count(*) FROM alert WHERE alert.created_at > now() - interval 1 day GROUP BY 1", binder),
    ];
    expect(severity(decideOn([...rewrites, sql("SELECT type FROM alert LIMIT 5")]), "same_failure")).toBe("warn");
    // Queries that fail each on their own column are being explored, not repeated.
    const explored = ["type", "kind", "severity"].map((column) => sql(`SELECT ${column} FROM alert`, `BinderException: Referenced column "${column}" not found`));
    expect(severity(decideOn([...explored, sql("SELECT * FROM alert LIMIT 1")]), "same_failure")).toBe("none");
  });

  it("lets an edit through the shell run: it is the fix being tried", () => {
    expect(severity(decideOn([...rechecks, bash("sed -i 's/^    async def verify/    except Exception:\\n        pass\\n&/' src/agents/checking_agent.py", "")]), "same_failure")).toBe("none");
  });

  it("starts over when the cause moves (the fix worked and the next error shows) or the check passes", () => {
    const moved = bash("python3 -m py_compile src/agents/checking_agent.py 2>&1 | tail -3", "SyntaxError: invalid syntax");
    expect(severity(decideOn([...rechecks.slice(0, 6), moved, bash("python3 -m py_compile src/agents/checking_agent.py", "")]), "same_failure")).toBe("none");
    const passed = bash("python3 -m py_compile src/agents/checking_agent.py 2>&1", "");
    expect(severity(decideOn([...rechecks.slice(0, 6), passed, bash("python3 -m py_compile src/agents/*.py", "")]), "same_failure")).toBe("none");
  });

  it("spares a long session that meets one failure now and then while it explores around it", () => {
    const explore = (n: number) => Array.from({ length: n }, (_, i) => bash(`grep -n "def f${i}" astroid/modutils.py`, `${i + 10}: def f${i}(x):`));
    const importError = (script: string) => bash(script, `Traceback (most recent call last):\n  File "<string>", line 1\nImportError: cannot import name 'formatargspec' from 'inspect'`);
    const session = [importError("python -c 'import astroid'"), ...explore(6), importError("cd /tmp/repro && python run.py"), ...explore(6), importError("python -m pytest tests/test_spec.py"), ...explore(6), importError("python -c 'import wrapt'")];
    expect(severity(decideOn([...session, bash("grep -n wrapt setup.py", "")]), "same_failure")).toBe("none");
  });

  it("spares one program run against different sites that all fail the same way (a sweep)", () => {
    const scrape = (site: string) => bash(`python3 -c "import requests, bs4; t = bs4.BeautifulSoup(requests.get('https://${site}/tech').text).find('table'); print(t.find_all('tr'))"`, `Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nAttributeError: 'NoneType' object has no attribute 'find_all'`);
    const sweep = ["marketbeat.com", "macrotrends.net", "tradingview.com", "slickcharts.com"].map(scrape);
    expect(severity(decideOn([...sweep, bash("python3 -c 'import yfinance'", "")]), "same_failure")).toBe("none");
  });

  it("leaves one program failing again to the detectors of repeats, and other tools alone", () => {
    const same = bash("python3 -m py_compile src/agents/checking_agent.py", SYNTAX);
    expect(findingOf(decideOn([same, same, same, same, same]), "same_failure")).toBeUndefined();
    const edit = (n: number): CallSpec => ({ tool: "edit", args: { filePath: "a.py", oldString: `x = ${n}`, newString: `x = ${n + 1}` }, error: "Error: SyntaxError: invalid syntax in the new text" });
    expect(findingOf(decideOn([edit(1), edit(2), edit(3), edit(4), edit(5)]), "same_failure")).toBeUndefined();
  });
});
