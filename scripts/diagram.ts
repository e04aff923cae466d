// `npm run diagram`: regenerate the README's Mermaid diagram from the compiled graph.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildGraph } from "../graphs/graph.js";
import { MemoryStore } from "../breaker/index.js";
import { withBlock } from "./readme-block.js";

const README = fileURLToPath(new URL("../README.md", import.meta.url));
const START_MARK = "<!-- graph:start (npm run diagram) -->";
const END_MARK = "<!-- graph:end -->";

/** The Mermaid source of the compiled graph, as the README shows it. */
export async function graphMermaid(): Promise<string> {
  const drawable = await buildGraph({ store: new MemoryStore() }).getGraphAsync();
  return drawable.drawMermaid().trim();
}

/** The README with its diagram block replaced by `mermaid`. */
export function withDiagram(readme: string, mermaid: string): string {
  return withBlock(readme, START_MARK, END_MARK, `\`\`\`mermaid\n${mermaid}\n\`\`\``);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const readme = await readFile(README, "utf8");
  const next = withDiagram(readme, await graphMermaid());
  if (next !== readme) await writeFile(README, next);
  console.log(next === readme ? "README diagram is current." : "README diagram updated.");
}
