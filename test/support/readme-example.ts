import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "./langgraph-dev-server.js";

/** A code block of the README, with the file its marker says it goes in. */
export interface ReadmeExample {
  name: string;
  /** Relative to the project root, as the marker gives it. */
  path: string;
  source: string;
}

const MARKED = /<!-- example:([a-z0-9-]+) (\S+) -->\n```ts\n([\s\S]*?)```/g;

/** Every README block marked `<!-- example:<name> <path> -->`, by name: tests run them exactly as written. */
export async function readmeExamples(): Promise<Map<string, ReadmeExample>> {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  return new Map([...readme.matchAll(MARKED)].map(([, name, path, source]) => [name!, { name: name!, path: path!, source: source! }]));
}

/** The README example of that name; throws when the README has none, so a renamed marker fails its test. */
export async function readmeExample(name: string): Promise<ReadmeExample> {
  const example = (await readmeExamples()).get(name);
  if (!example) throw new Error(`README.md has no block marked <!-- example:${name} <path> -->.`);
  return example;
}
