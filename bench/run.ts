// `npm run bench`: what the breaker costs and what it saves, next to baselines measured in the same run.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pc from "picocolors";
import { machineInfo } from "./lib/machine.js";
import { methodology } from "./lib/methodology.js";
import { runIsolated, type WorkerReply } from "./lib/isolate.js";
import type { SectionResult } from "./lib/section.js";
import { printSection, printTargets } from "./report/console.js";
import { benchmarksMarkdown, type BenchReport } from "./report/markdown.js";
import { SECTIONS } from "./sections/index.js";

const USAGE = `Usage: npm run bench [-- --quick] [-- --only id,id] [-- --dry-run]

  --quick     fewer iterations, same sections (under a minute); writes bench/results/quick.tmp.json only
  --only      run only these sections (${SECTIONS.map((s) => s.id).join(", ")}); prints, writes nothing
  --dry-run   print the results, write nothing`;

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const only = values.only?.split(",").map((s) => s.trim()).filter(Boolean);
const unknown = only?.filter((id) => !SECTIONS.some((s) => s.id === id)) ?? [];
if (unknown.length) {
  console.error(`Unknown section(s): ${unknown.join(", ")}.\n${USAGE}`);
  process.exit(2);
}

const quick = values.quick;
const started = Date.now();
const results: SectionResult[] = [];
let redisVersion: string | undefined;
for (const section of SECTIONS.filter((s) => !only || only.includes(s.id))) {
  console.log(pc.dim(`… ${section.title}`));
  const reply = await runIsolated(section.id, quick).catch(
    (error: Error): WorkerReply => ({
      result: { id: section.id, title: section.title, tables: [], targets: [], notes: [], data: null, failed: error.message },
    }),
  );
  redisVersion ??= reply.redisVersion;
  results.push(reply.result);
  printSection(reply.result);
}
printTargets(results);

const report: BenchReport = {
  generatedAt: new Date().toISOString(),
  quick,
  durationSeconds: (Date.now() - started) / 1000,
  machine: machineInfo(redisVersion),
  methodology: methodology(quick),
  sections: results,
};
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const write = async (file: string, content: string): Promise<void> => {
  const target = path.join(root, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, content);
  console.log(pc.dim(`wrote ${file}`));
};
if (values["dry-run"] || only) {
  console.log(pc.dim("\nNothing written (--dry-run or --only)."));
} else if (quick) {
  // A quick run checks the bench works; it never replaces the published figures.
  await write("bench/results/quick.tmp.json", `${JSON.stringify(report, null, 2)}\n`);
} else {
  await write("bench/results/latest.json", `${JSON.stringify(report, null, 2)}\n`);
  for (const artifact of results.flatMap((r) => r.artifacts ?? [])) await write(artifact.path, artifact.content);
  await write("docs/BENCHMARKS.md", benchmarksMarkdown(report));
}
console.log(pc.dim(`Finished in ${report.durationSeconds.toFixed(1)} s${quick ? " (--quick)" : ""}.`));
process.exitCode = results.some((r) => r.failed) ? 1 : 0;
