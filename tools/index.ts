/**
 * Example tools: deterministic, fixture-backed, no network, so every loop
 * scenario replays the same way.
 *
 * ## Adding a tool
 *
 * 1. Create `tools/<kebab-name>.ts` and export the tool made by `defineTool(spec, fn)`
 *    from `./define-tool.js`:
 *    - `name`: snake_case, what the model calls; `description`: when and how to use it.
 *    - `schema`: a zod object; `.describe()` every field (the model reads these).
 *      LangChain validates arguments against it before `fn` runs.
 *    - `nature`: `read_only` (lookups), `side_effecting` (must not repeat: sends, writes),
 *      `pagination` (same tool, moving cursor) or `polling` (same call, moving answer).
 *      The breaker picks the tool's loop policy from it.
 *    - `timeoutMs`: how long one call may run before the tools node gives up on it.
 * 2. Make `fn` deterministic: read data from `tools/fixtures/`, return JSON-serializable
 *    values, and throw a `ToolError` (code + a sentence the model can act on) for input
 *    it cannot serve; the tools node turns the throw into an error ToolMessage.
 * 3. Export it below and add it to `EXAMPLE_TOOLS`. If it keeps per-process state,
 *    export a reset function and call it from `resetToolFixtures()`.
 */
import { checkJobStatus, resetJobPolls } from "./check-job-status.js";
import { getFinancials } from "./get-financials.js";
import { kbSearch } from "./kb-search.js";
import { listOrders } from "./list-orders.js";
import { queryCrm } from "./query-crm.js";
import { queryDatabase } from "./query-database.js";
import { readFileContents } from "./read-file-contents.js";
import { searchFileIndex } from "./search-file-index.js";
import { resetOutbox, sendEmail } from "./send-email.js";

export { checkJobStatus, getFinancials, kbSearch, listOrders, queryCrm, queryDatabase, readFileContents, searchFileIndex, sendEmail };
export { sentEmails, type OutboxMessage } from "./send-email.js";
export { EXPECTED_PATH_FORMAT } from "./read-file-contents.js";
export { ToolError, type ToolErrorCode } from "./tool-error.js";
export { defineTool, declaredNature, toolNature, toolTimeoutMs, DEFAULT_TOOL_TIMEOUT_MS, type ToolSpec } from "./define-tool.js";

/** Every example tool, in the order they are offered to the model. */
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

/** Restore every tool's per-process state (job poll counts, the e-mail outbox) so runs replay identically. */
export function resetToolFixtures(): void {
  resetJobPolls();
  resetOutbox();
}
