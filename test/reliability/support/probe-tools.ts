import type { StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import type { ToolNature } from "../../../breaker/index.js";
import { defineTool } from "../../../tools/index.js";

/** A tool that counts its runs, so a test can tell what the breaker let through. */
export interface ProbeTool {
  tool: StructuredToolInterface;
  /** How many times the tool body ran. */
  runs(): number;
}

const schema = z.object({ n: z.number().int().optional().describe("Any number.") });

/** A probe tool returning `produce(n)` (or throwing what it throws). */
export function probeTool(name: string, produce: (n: number | undefined) => unknown, nature: ToolNature = "read_only"): ProbeTool {
  let runs = 0;
  const tool = defineTool({ name, description: `Probe tool ${name}.`, schema, nature, timeoutMs: 5_000 }, ({ n }) => {
    runs++;
    return produce(n);
  });
  return { tool, runs: () => runs };
}
