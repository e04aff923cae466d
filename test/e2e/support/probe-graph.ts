// A graph for the end-to-end tests only: the guarded graph with two more
// tools whose behaviour a test can watch from outside the server process
// (marker files in PROBE_DIR).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { interrupt } from "@langchain/langgraph";
import { z } from "zod";
import { buildGraph } from "../../../graphs/graph.js";
import { defineTool, EXAMPLE_TOOLS } from "../../../tools/index.js";

function mark(name: string): void {
  const dir = process.env.PROBE_DIR;
  if (dir) writeFileSync(join(dir, name), String(Date.now()));
}

/** Runs until its signal aborts (or a minute passes), leaving started-, aborted- or finished-<tag> behind. */
const slowExport = defineTool(
  { name: "slow_export", description: "Export everything; takes a while.", schema: z.object({ tag: z.string() }), nature: "read_only", timeoutMs: 60_000 },
  async ({ tag }, { signal }) => {
    mark(`started-${tag}`);
    const aborted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 60_000);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    mark(`${aborted ? "aborted" : "finished"}-${tag}`);
    return { exported: !aborted };
  },
);

/** Asks a person before it refunds: interrupt() pauses the run, the resume value decides. */
const refundOrder = defineTool(
  { name: "refund_order", description: "Refund an order once a person approves.", schema: z.object({ order_id: z.string() }), nature: "side_effecting" },
  ({ order_id }) => {
    const approved = interrupt({ question: `Refund ${order_id}?` }) === "yes";
    return { order_id, refunded: approved };
  },
);

export const graph = buildGraph({ tools: [...EXAMPLE_TOOLS, slowExport, refundOrder] });
graph.name = "Guarded agent with probe tools";
