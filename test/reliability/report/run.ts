// `npm run reliability`: run the reliability suites (and the multi-process
// Redis test), collect what they measured, and write docs/RELIABILITY.md.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { machineInfo } from "../../../bench/lib/machine.js";
import { FIGURES_FILE_ENV, type FigureRecord } from "../support/figures.js";
import { reliabilityMarkdown, type FileResult, type ReliabilityRun } from "./markdown.js";

const USAGE = `Usage: npm run reliability [-- --dry-run] [-- <test file> ...]

  Runs test/reliability and test/stores/redis-linearizability.test.ts with vitest,
  collects the figures the suites record, and writes docs/RELIABILITY.md.
  --dry-run   print the page, write nothing
  <file> ...  run only these test files (prints the page, writes nothing)`;

const SUITES = ["test/reliability", "test/stores/redis-linearizability.test.ts"];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

interface VitestJson {
  testResults: {
    name: string;
    startTime?: number;
    endTime?: number;
    assertionResults: { title: string; fullName?: string; status: string }[];
  }[];
}

function redisVersion(): string | undefined {
  const out = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  return /v=(\S+)/.exec(out.stdout ?? "")?.[1];
}

/** Per-file results from vitest's JSON report. */
export function fileResults(report: VitestJson): FileResult[] {
  return report.testResults
    .map((file) => {
      const count = (status: string) => file.assertionResults.filter((t) => t.status === status).length;
      return {
        file: path.relative(root, file.name),
        passed: count("passed"),
        failed: count("failed"),
        skipped: file.assertionResults.length - count("passed") - count("failed"),
        durationMs: Math.max(0, (file.endTime ?? 0) - (file.startTime ?? 0)),
        failures: file.assertionResults.filter((t) => t.status === "failed").map((t) => t.fullName ?? t.title),
      };
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { "dry-run": { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "reliability-"));
  const figuresFile = path.join(dir, "figures.jsonl");
  const jsonFile = path.join(dir, "vitest.json");
  await writeFile(figuresFile, "");
  const started = Date.now();
  const targets = positionals.length ? positionals : SUITES;
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(root, "node_modules/vitest/vitest.mjs"), "run", ...targets, "--reporter=default", "--reporter=json", `--outputFile.json=${jsonFile}`],
      { cwd: root, stdio: "inherit", env: { ...process.env, [FIGURES_FILE_ENV]: figuresFile } },
    );
    child.on("exit", (exitCode) => resolve(exitCode ?? 1));
  });
  try {
    const report = JSON.parse(await readFile(jsonFile, "utf8")) as VitestJson;
    const figures = (await readFile(figuresFile, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FigureRecord)
      .sort((a, b) => `${a.section}|${a.scenario}`.localeCompare(`${b.section}|${b.scenario}`));
    const run: ReliabilityRun = {
      generatedAt: new Date().toISOString(),
      durationSeconds: (Date.now() - started) / 1_000,
      machine: machineInfo(redisVersion()),
      files: fileResults(report),
      figures,
    };
    const template = await readFile(path.join(root, "test/reliability/report/template.md"), "utf8");
    const page = reliabilityMarkdown(template, run);
    if (values["dry-run"] || positionals.length) {
      console.log(page);
      console.log("\nNothing written (--dry-run or a subset of files).");
    } else {
      await writeFile(path.join(root, "docs/RELIABILITY.md"), page);
      console.log(`\nWrote docs/RELIABILITY.md (${run.files.length} test files, ${figures.length} figure records).`);
    }
    if (code !== 0) console.error(`vitest exited with ${code}: the page says which tests failed.`);
    process.exitCode = code;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
