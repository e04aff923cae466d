import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** A labelled trajectory of the corpus. */
export interface LabelledTrajectory {
  file: string;
  id: string;
  label: "loop" | "legit";
  /** For loops: the detector whose block should stop it. */
  expectDetector?: string;
  data: unknown;
}

/** The corpus directory. */
export const CORPUS_DIR = join(import.meta.dirname, "../../fixtures/trajectories");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".json") ? [join(dir, entry.name)] : [],
  );
}

/** Every labelled trajectory under test/fixtures/trajectories. */
export function loadCorpus(): LabelledTrajectory[] {
  return files(CORPUS_DIR)
    .sort()
    .map((file) => {
      const data = JSON.parse(readFileSync(file, "utf8")) as { id: string; label: "loop" | "legit"; expectDetector?: string };
      return { file: relative(CORPUS_DIR, file), id: data.id, label: data.label, expectDetector: data.expectDetector, data };
    });
}
