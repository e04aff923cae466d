import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Which half of the corpus a case is in: tuned on, or only reported. */
export type Split = "dev" | "heldout";

/** A labelled trajectory of the corpus. */
export interface LabelledTrajectory {
  file: string;
  id: string;
  split: Split;
  /** The source id: the folder under the split. */
  source: string;
  label: "loop" | "legit";
  /** For loops: the detector whose block should stop it. */
  expectDetector?: string;
  /** Set when a peer's label differs from what a general breaker should do; counted apart. */
  disputed?: { generalLabel: "loop" | "legit"; why: string };
  data: unknown;
}

/** The corpus directory. */
export const CORPUS_DIR = join(import.meta.dirname, "../../test/fixtures/trajectories");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".json") ? [join(dir, entry.name)] : [],
  );
}

const SPLITS: readonly string[] = ["dev", "heldout"];

/** Every labelled trajectory under test/fixtures/trajectories/<split>/<source>/ (files beside the splits are not cases). */
export function loadCorpus(): LabelledTrajectory[] {
  // A split with no case yet (all its sources just moved to dev) is an empty split, not an error.
  return SPLITS.flatMap((split) => (existsSync(join(CORPUS_DIR, split)) ? files(join(CORPUS_DIR, split)) : []))
    .sort()
    .map((file) => {
      const path = relative(CORPUS_DIR, file);
      const [split, source] = path.split(sep) as [Split, string];
      const data = JSON.parse(readFileSync(file, "utf8")) as Omit<LabelledTrajectory, "file" | "split" | "source" | "data">;
      return { file: path, split, source, id: data.id, label: data.label, expectDetector: data.expectDetector, disputed: data.disputed, data };
    });
}
