import type { Figures, ScoredCase, SplitFigures } from "./score.js";
import { verdictLine } from "./score.js";

/** Sentences explaining held-out misses and false alarms, by case id (test/fixtures/trajectories/heldout-notes.json). */
export type Notes = Record<string, string>;

const pct = (x: number) => (Number.isNaN(x) ? "n/a" : x.toFixed(3));

function figuresRow(name: string, f: Figures, disputed?: number): string {
  const cells = [name, f.loops + f.legit, f.loops, f.legit, pct(f.recall), pct(f.falsePositiveRate)];
  if (disputed !== undefined) cells.push(disputed);
  return `| ${cells.join(" | ")} |`;
}

function caseLine(s: ScoredCase, notes?: Notes): string {
  const note = notes?.[s.case.id];
  return `- \`${s.case.id}\` (${s.case.source}): ${verdictLine(s)}.${note ? ` ${note}` : ""}`;
}

function disputedLine(s: ScoredCase): string {
  const d = s.case.disputed!;
  const did = s.result.passed ? "let it run" : "stopped it";
  return `- \`${s.case.id}\` (${s.case.source}): the peer says ${s.case.label}, a general breaker ${d.generalLabel}; the breaker ${did}. ${d.why}`;
}

/** The corpus figures as markdown: both splits, held-out per source, every held-out error with its note. */
export function corpusMarkdown(splits: readonly SplitFigures[], notes: Notes): string {
  const lines = [
    "| split | cases | loops | legitimate | recall | false-positive rate | disputed (apart) |",
    "|---|---|---|---|---|---|---|",
    ...splits.map((s) => figuresRow(`\`${s.split}\``, s.figures, s.disputed.length)),
  ];
  for (const s of splits) {
    // Held-out by source shows where the figures come from; the dev split has too many sources to list usefully.
    if (s.split === "heldout") {
      lines.push("", `### \`${s.split}\` by source`, "", "| source | cases | loops | legitimate | recall | false-positive rate |", "|---|---|---|---|---|---|");
      for (const [source, f] of s.sources) lines.push(figuresRow(source, f));
    }
    const withNotes = s.split === "heldout" ? notes : undefined;
    lines.push("", `### \`${s.split}\`: loops let through (${s.figures.misses.length})`, "");
    lines.push(...(s.figures.misses.length ? s.figures.misses.map((m) => caseLine(m, withNotes)) : ["None."]));
    lines.push("", `### \`${s.split}\`: legitimate runs stopped (${s.figures.falseAlarms.length})`, "");
    lines.push(...(s.figures.falseAlarms.length ? s.figures.falseAlarms.map((m) => caseLine(m, withNotes)) : ["None."]));
    if (s.disputed.length) lines.push("", `### \`${s.split}\`: disputed cases, counted apart (${s.disputed.length})`, "", ...s.disputed.map(disputedLine));
  }
  return lines.join("\n");
}

/** Held-out misses and false alarms that have no explaining note. */
export function unexplained(splits: readonly SplitFigures[], notes: Notes): string[] {
  const heldout = splits.find((s) => s.split === "heldout");
  if (!heldout) return [];
  return [...heldout.figures.misses, ...heldout.figures.falseAlarms].map((s) => s.case.id).filter((id) => !notes[id]);
}

/** A short console summary of one split. */
export function consoleSummary(s: SplitFigures): string {
  const f = s.figures;
  const head = `${s.split}: ${f.loops + f.legit} cases (${f.loops} loops, ${f.legit} legitimate), recall ${pct(f.recall)}, false-positive rate ${pct(f.falsePositiveRate)}; ${s.disputed.length} disputed apart`;
  const rows = [
    ...f.misses.map((m) => `  missed loop   ${m.case.id}: ${verdictLine(m)}`),
    ...f.falseAlarms.map((m) => `  false alarm   ${m.case.id}: ${verdictLine(m)}`),
  ];
  return [head, ...rows].join("\n");
}
