import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { graphMermaid, withDiagram } from "../../scripts/diagram.js";

describe("README diagram", () => {
  it("is the Mermaid of the compiled graph (run `npm run diagram` after changing the graph)", async () => {
    const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
    const mermaid = await graphMermaid();
    expect(mermaid).toContain("agent -.-> circuit_fallback");
    expect(withDiagram(readme, mermaid)).toBe(readme);
  });
});
