import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { BreakerError } from "../errors.js";
import { evaluateTrajectory } from "../evaluator/evaluate.js";
import { InputError, readTrajectoryItems, type SourceItem } from "../evaluator/read-input.js";
import { toTrajectory } from "../evaluator/to-trajectory.js";
import type { ReplayTrajectory } from "../evaluator/trajectory.js";
import { parsePolicy, type Policy } from "../policy.js";
import { jsonReport, tableReport, traceReport, type ReportRow } from "./eval-report.js";

/** Where the CLI writes: the entry point (breaker/cli/eval.ts) passes the process's streams and terminal width. */
export interface EvalIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Terminal width for the table. */
  columns?: number;
}

/** Exit codes: every trajectory passed, some failed, or the input could not be read. */
export const EXIT = { passed: 0, failed: 1, unreadable: 2 } as const;

const USAGE = `Usage: npm run eval -- <file or directory>... [--json] [--policy <file>] [--trace]

--trace shows every call: the circuit's state and findings before it ran, and
how its result was read (ok, empty, error; transient; work in progress).

A directory stands for every .json and .jsonl file under it. A file holds one
trajectory, a JSON array of them, or one per line (JSON Lines); JSON Lines
whose lines are messages (a Claude Code or Codex session log) are one
trajectory. A trajectory is:
  {"id"?, "messages": [...]}      OpenAI chat messages (tool_calls, role "tool"),
                                  or LangChain messages (serialized, {type, data}
                                  or {type}), Anthropic tool_use / tool_result blocks,
                                  AI SDK tool-call / tool-result parts (or UI parts),
                                  Gemini functionCall / functionResponse parts
  {"values": {"messages": [...]}} a LangGraph thread's state (SDK threads.getState)
  {"id"?, "input": [...]}         OpenAI Responses API items (function_call,
                                  function_call_output, message)
  {"id"?, "contents": [...]}      Gemini contents
  [...messages]                   the same messages as a bare array
  {"id"?, "toolCalls": [...]}     a list of {name, args, output? | error?, timestamp?}
                                  calls (the result also as result, observation or
                                  response; status "error" or is_error marks a
                                  failure), with {"role": "user", "content"} entries
                                  for user turns
  [{name, args, output}, ...]     the same calls as a bare array
Add "natures": {"tool": "polling" | "side_effecting" | ...} to declare tool natures.

Exit codes: 0 every trajectory passed, 1 one tripped the breaker,
2 the input could not be read or held no trajectory (with --json, as a JSON error).`;

// A directory stands for every .json / .jsonl file under it, in name order.
async function expand(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter((e) => e.isDirectory() || /\.jsonl?$/i.test(e.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((e) => expand(join(path, e.name))),
  );
  return nested.flat();
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new InputError(file, 1, `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
}

async function loadPolicy(file: string | undefined): Promise<Policy> {
  if (!file) return parsePolicy({});
  const [item] = readTrajectoryItems(await readText(file), file);
  try {
    return parsePolicy(item?.value ?? {});
  } catch (error) {
    throw new InputError(file, item?.line ?? 1, (error as Error).message);
  }
}

interface Loaded {
  id: string;
  trajectory: ReplayTrajectory;
}

function load(file: string, item: SourceItem): Loaded {
  try {
    const trajectory = toTrajectory(item.value);
    return { id: trajectory.id ?? `${basename(file)}:${item.line}`, trajectory };
  } catch (error) {
    if (error instanceof BreakerError) throw new InputError(file, item.line, error.message);
    throw error;
  }
}

/** The eval CLI without the process: parse arguments, read every file, replay, report; returns the exit code. */
export async function runEval(argv: readonly string[], io: EvalIo): Promise<number> {
  // Input problems go where the reader looks: a JSON document on stdout with --json, a sentence on stderr without.
  const unreadable = (message: string, where?: InputError): number => {
    if (argv.includes("--json")) {
      const at = where ? { file: where.file, line: where.line } : {};
      io.out(JSON.stringify({ error: { code: "INVALID_INPUT", message, ...at } }, null, 2));
    } else io.err(where ? message : `${message}\n${USAGE}`);
    return EXIT.unreadable;
  };
  let options: { json?: boolean; policy?: string; help?: boolean; trace?: boolean };
  let files: string[];
  try {
    const parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { json: { type: "boolean" }, policy: { type: "string" }, trace: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
    options = parsed.values;
    files = parsed.positionals;
  } catch (error) {
    return unreadable((error as Error).message);
  }
  if (options.help) {
    io.out(USAGE);
    return EXIT.passed;
  }
  if (files.length === 0) return unreadable("No trajectory file given.");
  let policy: Policy;
  const loaded: Loaded[] = [];
  try {
    policy = await loadPolicy(options.policy);
    for (const file of (await Promise.all(files.map(expand))).flat()) {
      for (const item of readTrajectoryItems(await readText(file), file)) loaded.push(load(file, item));
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return unreadable(error.message, error);
  }
  // A CI gate that checked nothing must not pass.
  if (loaded.length === 0) return unreadable(`No trajectory found in ${files.join(", ")}: nothing was checked. Give .json or .jsonl files holding trajectories.`);
  // A trajectory whose messages held no call the reader knows (a format it does not read) would pass unchecked.
  const callless = loaded.filter(({ trajectory }) => !trajectory.events.some((e) => e.type === "model" && e.calls.length > 0));
  if (callless.length === loaded.length) {
    return unreadable(`No tool call found in ${files.join(", ")}: nothing was checked. See --help for the formats read.`);
  }
  for (const { id } of callless) io.err(`${id}: no tool call found; it passes unchecked.`);
  const rows: ReportRow[] = [];
  for (const { id, trajectory } of loaded) {
    rows.push({ id, result: await evaluateTrajectory({ ...trajectory, id }, policy, { trace: options.trace === true }) });
  }
  if (options.json) io.out(JSON.stringify(jsonReport(rows), null, 2));
  else io.out(options.trace ? `${tableReport(rows, io.columns)}\n\n${traceReport(rows)}` : tableReport(rows, io.columns));
  return rows.every((r) => r.result.passed) ? EXIT.passed : EXIT.failed;
}
