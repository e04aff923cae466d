// Check corpus case files for format and provenance, without judging them:
// `npx tsx scripts/corpus-check.ts <file or folder>...`. Prints one line per case. Cases outside the corpus
// (a round being built, `<round>/<source-id>/<case>.json`) are also checked for novelty: no id, source folder,
// repository or page the corpus already has, no call list it already holds, no secret.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { toTrajectory } from "../breaker/evaluator/to-trajectory.js";
import { CORPUS_DIR, loadCorpus } from "./corpus/load.js";
import { corpusIndex, noveltyProblems } from "./corpus/novelty.js";

function files(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name))).filter((f) => f.endsWith(".json"));
}

const inCorpus = (file: string) => !relative(CORPUS_DIR, resolve(file)).startsWith("..");
let index: ReturnType<typeof corpusIndex> | undefined;
let bad = 0;
for (const file of process.argv.slice(2).flatMap(files)) {
  const problems: string[] = [];
  let summary = "";
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    if (typeof data.id !== "string" || !data.id) problems.push("no id");
    if (data.label !== "loop" && data.label !== "legit") problems.push(`label must be "loop" or "legit"`);
    if (!data.source) problems.push("no source");
    if (typeof data.description !== "string") problems.push("no description");
    const trajectory = toTrajectory(data);
    const calls = trajectory.events.reduce((n, e) => n + (e.type === "model" ? e.calls.length : 0), 0);
    const results = trajectory.events.filter((e) => e.type === "result").length;
    if (calls === 0) problems.push("no tool calls");
    if (!inCorpus(file)) problems.push(...noveltyProblems(data, basename(dirname(file)), (index ??= corpusIndex(loadCorpus()))));
    summary = `${String(data.label).padEnd(5)} ${calls} calls, ${results} results${data.disputed ? ", disputed" : ""}`;
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0) bad++;
  console.log(`${problems.length ? "BAD " : "ok  "} ${file}: ${problems.join("; ") || summary}`);
}
process.exitCode = bad > 0 ? 1 : 0;
