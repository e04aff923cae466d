import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify, stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { EXIT, runEval } from "../../../breaker/cli/run-eval.js";
import { CORPUS_DIR } from "../../../scripts/corpus/load.js";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "eval-cli-"));
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

const seedClean = join(CORPUS_DIR, "dev/project/seed/seed-clean-crm-finance.json");
const seedStutter = join(CORPUS_DIR, "dev/project/seed/seed-kb-search-offset-stutter.json");

async function evalCli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runEval(args, { out: (t) => out.push(t), err: (t) => err.push(t), columns: 120 });
  // Colours are on wherever picocolors sees CI or a TTY: read the text as the user reads it.
  const plain = (lines: string[]) => stripVTControlCharacters(lines.join("\n"));
  return { code, out: plain(out), err: plain(err) };
}

describe("eval CLI", () => {
  it("prints the --json report and exits 1 when a trajectory fails", async () => {
    const { code, out } = await evalCli(seedClean, seedStutter, "--json");
    expect(code).toBe(EXIT.failed);
    const report = JSON.parse(out);
    expect(report.summary).toEqual({ total: 2, passed: 1, failed: 1 });
    expect(report.results[0]).toEqual({ id: "seed-clean-crm-finance", passed: true, score: 1, trippedAtStep: null, calls: 2, unanswered: 0, findings: [] });
    expect(report.results[1]).toMatchObject({ id: "seed-kb-search-offset-stutter", passed: false, score: 0, trippedAtStep: 3 });
    for (const finding of report.results[1].findings) {
      expect(Object.keys(finding).sort()).toEqual(["detector", "message", "severity", "steps"]);
    }
  });

  it("shows with --trace every call's verdict and how its result was read, up to the refused call", async () => {
    const search = (output: unknown) => ({ name: "search", args: { q: "acme pricing" }, ...(output === undefined ? {} : { output }) });
    const file = write("trace.json", JSON.stringify({ id: "traced", toolCalls: [search("No results"), search("No results"), search(undefined)] }));
    const { code, out } = await evalCli(file, "--trace", "--json");
    expect(code).toBe(EXIT.failed);
    const [result] = JSON.parse(out).results;
    expect(result.trippedAtStep).toBe(3);
    expect(result.trace.map((c: { step: number; state: string; allowed: boolean; result?: string }) => [c.step, c.state, c.allowed, c.result])).toEqual([
      [1, "CLOSED", true, "empty"],
      [2, "HALF_OPEN", true, "empty"],
      [3, "OPEN", false, undefined],
    ]);
    expect(result.trace[2].findings).toContainEqual({ detector: "identical_repeat", severity: "block", count: 3, limit: 3 });
    const text = await evalCli(file, "--trace");
    expect(text.out).toMatch(/traced: tripped at call 3/);
    expect(text.out).toMatch(/#3 run \d search \{"q":"acme pricing"\} \[OPEN, refused\] identical_repeat block 3\/3/);
    // Without --trace the report carries no trace.
    expect(JSON.parse((await evalCli(file, "--json")).out).results[0].trace).toBeUndefined();
  });

  it("exits 2 when it was given no trajectory at all: an empty folder, or a file holding an empty list", async () => {
    const empty = mkdtempSync(join(tmpdir(), "eval-empty-"));
    for (const args of [[empty], [write("none.json", "[]")]]) {
      const { code, err } = await evalCli(...args);
      expect(code, args.join(" ")).toBe(EXIT.unreadable);
      expect(err).toMatch(/No trajectory found in .*nothing was checked/);
    }
    const json = await evalCli(empty, "--json");
    expect(json.code).toBe(EXIT.unreadable);
    expect(JSON.parse(json.out).error.message).toMatch(/No trajectory found in .*nothing was checked/);
  });

  it("reports input errors as JSON with --json: what is wrong, in which file and line", async () => {
    const broken = write("broken.json", '{"messages": [\n  {"role": "user"\n');
    const { code, out, err } = await evalCli(broken, "--json");
    expect(code).toBe(EXIT.unreadable);
    expect(err).toBe("");
    expect(JSON.parse(out)).toEqual({ error: { code: "INVALID_INPUT", message: expect.stringContaining("invalid JSON"), file: broken, line: 3 } });
    const none = await evalCli("--json");
    expect(JSON.parse(none.out).error.message).toMatch(/No trajectory file given/);
  });

  it("reads a plain list of {name, args, output} calls, and documents every format it accepts", async () => {
    const calls = write("calls.json", JSON.stringify([1, 2, 3, 4].map(() => ({ name: "lookup", args: { id: 7 }, output: "[]" }))));
    const { code, out } = await evalCli(calls, "--json");
    expect(code).toBe(EXIT.failed);
    expect(JSON.parse(out).results[0]).toMatchObject({ passed: false, trippedAtStep: 3 });
    const help = await evalCli("--help");
    for (const format of ['"messages"', '"toolCalls"', "[...messages]", "[{name, args, output}, ...]", "JSON Lines", "natures"]) expect(help.out).toContain(format);
  });

  it("says when a trajectory holds calls without results: they are judged as still running", async () => {
    // A screenshot agent's recording: its actions, none of the screens they brought back.
    const scrolls = write("scrolls.json", JSON.stringify({ id: "scrolls", toolCalls: [1, 2, 3].map(() => ({ name: "scroll", args: { dy: 600 } })) }));
    const table = await evalCli(scrolls);
    expect(table.code).toBe(EXIT.failed);
    expect(table.out).toContain("scrolls: 2 of 3 calls have no result in the trajectory; the breaker counts them as still running");
    expect(JSON.parse((await evalCli(scrolls, "--json")).out).results[0]).toMatchObject({ calls: 3, unanswered: 2, trippedAtStep: 3 });
    // With its results recorded, no such note.
    const answered = await evalCli(seedClean);
    expect(answered.out).not.toContain("have no result");
  });

  it("exits 0 when everything passes and prints a table", async () => {
    const { code, out } = await evalCli(seedClean);
    expect(code).toBe(EXIT.passed);
    expect(out).toContain("seed-clean-crm-finance");
    expect(out).toMatch(/1 trajectories: .*1 passed/);
  });

  it("reads JSON Lines and names trajectories without an id by file and line", async () => {
    const file = write("runs.jsonl", ['{"toolCalls":[{"name":"a","args":{}}]}', "", '{"id":"named","toolCalls":[]}'].join("\n"));
    const { code, out } = await evalCli(file, "--json");
    expect(code).toBe(EXIT.passed);
    expect(JSON.parse(out).results.map((r: { id: string }) => r.id)).toEqual(["runs.jsonl:1", "named"]);
  });

  it("exits 2 when no trajectory holds a tool call it can read, and names a callless one beside others", async () => {
    // Messages in a shape with no call the reader knows: a CI gate must not pass them as checked.
    const unread = write("unread.json", JSON.stringify({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ kind: "call", tool: "x" }] }] }));
    const none = await evalCli(unread);
    expect(none.code).toBe(EXIT.unreadable);
    expect(none.err).toMatch(/No tool call found in .*unread\.json: nothing was checked/);
    const mixed = await evalCli(unread, seedClean);
    expect(mixed.code).toBe(EXIT.passed);
    expect(mixed.err).toContain("unread.json:1: no tool call found; it passes unchecked.");
  });

  it("reads every .json file under a directory", async () => {
    const { code, out } = await evalCli(join(CORPUS_DIR, "dev/project/seed"), "--json");
    expect(code).toBe(EXIT.failed);
    expect(JSON.parse(out).results.map((r: { id: string }) => r.id)).toEqual(["seed-clean-crm-finance", "seed-kb-search-offset-stutter"]);
  });

  it("applies a --policy file", async () => {
    const policy = write("policy.json", JSON.stringify({ detectors: { semantic_stutter: { warn: 5, block: 6 } } }));
    expect((await evalCli(seedStutter, "--policy", policy)).code).toBe(EXIT.passed);
  });

  it("exits 2 naming the file and line of unreadable input", async () => {
    const broken = write("broken.jsonl", '{"toolCalls":[]}\n{"toolCalls":[\n');
    expect(await evalCli(broken)).toMatchObject({ code: EXIT.unreadable, err: `${broken}:2: invalid JSON (unexpected end of input).` });
    const wrong = write("wrong.json", '[\n  {"messages": []},\n  {"steps": []}\n]');
    const result = await evalCli(wrong);
    expect(result.code).toBe(EXIT.unreadable);
    expect(result.err).toMatch(new RegExp(`^${wrong.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: Trajectory has neither`));
    expect((await evalCli(join(dir, "missing.json"))).err).toMatch(/missing\.json:1: cannot read the file \(ENOENT\)/);
    const badPolicy = write("bad-policy.json", '{"detectors":{"cycle":{"warn":9,"block":2}}}');
    expect(await evalCli(seedClean, "--policy", badPolicy)).toMatchObject({ code: EXIT.unreadable });
    expect((await evalCli()).code).toBe(EXIT.unreadable);
  });

  it("runs as `npm run eval` does, with the exit code as the process status", async () => {
    const cli = ["--import", "tsx", "breaker/cli/eval.ts"];
    const ok = await run(process.execPath, [...cli, seedClean, "--json"]);
    expect(JSON.parse(ok.stdout).summary.passed).toBe(1);
    await expect(run(process.execPath, [...cli, seedStutter])).rejects.toMatchObject({ code: 1 });
    await expect(run(process.execPath, [...cli, join(dir, "nope.json")])).rejects.toMatchObject({ code: 2 });
  });
});
