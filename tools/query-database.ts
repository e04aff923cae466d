import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { CUSTOMERS, INVOICES, ORDERS } from "./fixtures/commerce.js";
import { ToolError } from "./tool-error.js";

const schema = z.object({
  sql: z
    .string()
    .trim()
    .min(1)
    .max(2_000)
    .describe("One query of the form: SELECT * FROM <table> [WHERE <column> = <literal>] [LIMIT <n>]. Tables: customers, orders, invoices."),
});

const TABLES: Readonly<Record<string, readonly object[]>> = { customers: CUSTOMERS, orders: ORDERS, invoices: INVOICES };
const TABLE_NAMES = Object.keys(TABLES).join(", ");
const GRAMMAR = "SELECT * FROM <table> [WHERE <column> = <literal>] [LIMIT <n>]";

// The whole supported grammar in one anchored pattern: no eval, no general SQL parser.
// Literals: 'text' ('' escapes a quote), numbers, true/false.
const SELECT =
  /^select\s+\*\s+from\s+([a-z_][a-z0-9_]*)(?:\s+where\s+([a-z_][a-z0-9_]*)\s*=\s*('(?:[^']|'')*'|-?\d+(?:\.\d+)?|true|false))?(?:\s+limit\s+(\d+))?\s*;?$/i;

type Literal = string | number | boolean;

/** A parsed query of the supported subset. */
interface SelectQuery {
  table: string;
  where?: { column: string; value: Literal };
  limit?: number;
}

function parseLiteral(text: string): Literal {
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  const lower = text.toLowerCase();
  if (lower === "true" || lower === "false") return lower === "true";
  return Number(text);
}

function parseSelect(sql: string): SelectQuery {
  const m = SELECT.exec(sql);
  if (!m) throw new ToolError("UNSUPPORTED_SQL", `Unsupported SQL: this database answers only ${GRAMMAR}. Tables: ${TABLE_NAMES}.`);
  const [, table = "", column, literal, limit] = m;
  return {
    // Unquoted identifiers fold to lower case, as in PostgreSQL.
    table: table.toLowerCase(),
    ...(column && literal ? { where: { column: column.toLowerCase(), value: parseLiteral(literal) } } : {}),
    ...(limit ? { limit: Number(limit) } : {}),
  };
}

function cell(row: object, column: string): unknown {
  return (row as Record<string, unknown>)[column];
}

/** Run one query of the supported subset against the fixture tables. */
function runSelect(query: SelectQuery): object[] {
  const rows = TABLES[query.table];
  if (!rows) throw new ToolError("UNKNOWN_RELATION", `relation "${query.table}" does not exist. Tables: ${TABLE_NAMES}.`);
  const where = query.where;
  let result = rows;
  if (where) {
    const columns = Object.keys(rows[0] ?? {});
    if (!columns.includes(where.column)) {
      throw new ToolError(
        "UNKNOWN_COLUMN",
        `column "${where.column}" does not exist in "${query.table}". Columns: ${columns.join(", ")}.`,
      );
    }
    result = rows.filter((row) => cell(row, where.column) === where.value);
  }
  return result.slice(0, query.limit ?? result.length).map((row) => ({ ...row }));
}

/**
 * Read-only SQL over a tiny fixture database; a missing table fails the same way every time, for the repeated-failure scenario.
 * Throws ToolError UNSUPPORTED_SQL (another query form), UNKNOWN_RELATION (a table) or UNKNOWN_COLUMN.
 */
export const queryDatabase = defineTool(
  {
    name: "query_database",
    description: `Run a read-only SQL query on the orders database. Supported form only: ${GRAMMAR}. Tables: ${TABLE_NAMES}. Returns the rows and their count.`,
    schema,
    nature: "read_only",
    timeoutMs: 10_000,
    examples: [{ sql: "SELECT * FROM invoices" }, { sql: "SELECT * FROM orders WHERE customer_id = 'cust_001' LIMIT 3" }],
  },
  ({ sql }) => {
    const rows = runSelect(parseSelect(sql));
    return { rows, row_count: rows.length };
  },
);
