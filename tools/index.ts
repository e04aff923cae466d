/**
 * The tools the agent is offered: one file each in this folder, and one list below.
 *
 * ## Adding a tool
 *
 * 1. Write `tools/<kebab-name>.ts` exporting the tool made by `defineTool(spec, fn)`
 *    (`./define-tool.js`): a snake_case `name`, a `description` saying when to use
 *    it, a zod `schema` with every field `.describe()`d (the model reads them), its
 *    `nature` (read_only, side_effecting, pagination or polling: the breaker picks
 *    its loop policy from it), a `timeoutMs`, and `examples` of valid arguments.
 *    Throw a `ToolError` (a code of the tool's own and a sentence the model can act
 *    on) for input it cannot serve; the tools node turns any throw into an error reply.
 * 2. Import it below and add it to `EXAMPLE_TOOLS`. That is all: test/tools/index.test.ts
 *    checks and calls every tool of the list with its examples.
 *
 * The example tools read deterministic data from `tools/fixtures/` (no network), so
 * every loop scenario replays the same way; each fixture file serves one tool family.
 */
import { checkJobStatus } from "./check-job-status.js";
import { resetTool } from "./define-tool.js";
import { getFinancials } from "./get-financials.js";
import { kbSearch } from "./kb-search.js";
import { listOrders } from "./list-orders.js";
import { queryCrm } from "./query-crm.js";
import { queryDatabase } from "./query-database.js";
import { readFileContents } from "./read-file-contents.js";
import { searchFileIndex } from "./search-file-index.js";
import { sendEmail } from "./send-email.js";

export { ToolError, type ToolErrorCode } from "./tool-error.js";
export {
  defineTool,
  declaredNature,
  toolExamples,
  toolNature,
  toolTimeoutMs,
  DEFAULT_TOOL_TIMEOUT_MS,
  type GuardedToolRuntime,
  type ToolSpec,
} from "./define-tool.js";

/** Every tool, in the order they are offered to the model: the one list a new tool joins. */
export const EXAMPLE_TOOLS = [
  queryCrm,
  getFinancials,
  kbSearch,
  searchFileIndex,
  readFileContents,
  queryDatabase,
  listOrders,
  checkJobStatus,
  sendEmail,
];

/** Restore every listed tool's per-process state (job poll counts, the e-mail outbox) so runs replay identically. */
export function resetToolFixtures(): void {
  for (const t of EXAMPLE_TOOLS) resetTool(t);
}
