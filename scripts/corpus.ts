// `npm run corpus [-- --split dev|heldout] [--policy <file>] [--write]`: replay the labelled
// corpus through the breaker (default policy, or the policy file's) and print recall and
// false-positive rate per split; --write regenerates the figures in docs/DETECTORS.md.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CORPUS_DIR, loadCorpus, type Split } from "./corpus/load.js";
import { consoleSummary, corpusMarkdown, unexplained, type Notes } from "./corpus/report.js";
import { scoreCases, splitFigures } from "./corpus/score.js";
import { parsePolicy } from "../breaker/policy.js";

const DOC = fileURLToPath(new URL("../docs/DETECTORS.md", import.meta.url));
const NOTES = `${CORPUS_DIR}/heldout-notes.json`;
const START_MARK = "<!-- corpus:start (npm run corpus -- --write) -->";
const END_MARK = "<!-- corpus:end -->";

/** The held-out explanations, by case id. */
export async function readNotes(): Promise<Notes> {
  return JSON.parse(await readFile(NOTES, "utf8").catch(() => "{}")) as Notes;
}

/** The figures of both splits, as docs/DETECTORS.md shows them. */
export async function corpusFigures() {
  const scored = await scoreCases(loadCorpus());
  return (["dev", "heldout"] as const).map((split) => splitFigures(scored, split));
}

/** The document with its figures block replaced. */
export function withFigures(doc: string, markdown: string): string {
  const start = doc.indexOf(START_MARK);
  const end = doc.indexOf(END_MARK);
  if (start < 0 || end < start) throw new Error(`docs/DETECTORS.md lacks the ${START_MARK} ... ${END_MARK} block.`);
  return `${doc.slice(0, start + START_MARK.length)}\n${markdown}\n${doc.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { split: { type: "string" }, policy: { type: "string" }, write: { type: "boolean" } } });
  const only = values.split as Split | undefined;
  if (only && only !== "dev" && only !== "heldout") throw new Error(`--split must be dev or heldout, not ${only}.`);
  // A policy to try against the corpus (the published figures are the default policy's).
  if (values.policy && values.write) throw new Error("--write publishes the default policy's figures: drop --policy.");
  const policy = values.policy ? parsePolicy(JSON.parse(await readFile(values.policy, "utf8"))) : undefined;
  const scored = await scoreCases(loadCorpus().filter((c) => !only || c.split === only), policy);
  const splits = (only ? [only] : (["dev", "heldout"] as const)).map((split) => splitFigures(scored, split));
  for (const s of splits) console.log(consoleSummary(s));
  if (values.write) {
    if (only) throw new Error("--write needs both splits: drop --split.");
    const notes = await readNotes();
    const missing = unexplained(splits, notes);
    if (missing.length) console.warn(`Held-out errors without a note in ${NOTES}: ${missing.join(", ")}`);
    const doc = await readFile(DOC, "utf8");
    const next = withFigures(doc, corpusMarkdown(splits, notes));
    if (next !== doc) await writeFile(DOC, next);
    console.log(next === doc ? "docs/DETECTORS.md figures are current." : "docs/DETECTORS.md figures updated.");
  }
}
