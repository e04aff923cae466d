// usage: npx tsx /work/scratch/policy-diff.ts '<policy json>'  (run from the worktree root)
import { loadCorpus } from "./scripts/corpus/load.js";
import { scoreCases, splitFigures } from "./scripts/corpus/score.js";
const policy = JSON.parse(process.argv[2] ?? "{}");
const cases = loadCorpus().filter((c) => c.split === (process.env.SPLIT ?? "dev"));
const a = await scoreCases(cases);
const b = await scoreCases(cases, policy);
for (const [name, s] of [["default", a], ["variant", b]] as const) {
  const f = splitFigures(s, "dev").figures;
  console.log(name, "recall", f.recall.toFixed(3), "fpr", f.falsePositiveRate.toFixed(3), "misses", f.misses.length, "fa", f.falseAlarms.length);
}
for (let i = 0; i < a.length; i++) if (a[i].correct !== b[i].correct) console.log(b[i].correct ? "FIXED " : "BROKE ", a[i].case.label, a[i].case.id, a[i].case.disputed ? "(disputed)" : "");
