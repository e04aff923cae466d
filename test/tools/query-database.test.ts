import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "../../breaker/outcome.js";
import { ToolError } from "../../tools/index.js";
import { queryDatabase } from "../../tools/query-database.js";
import { run, SCHEMA_REJECTION } from "./invoke.js";

const query = (sql: string) => run(queryDatabase, { sql });

describe("query_database", () => {
  it("selects a whole table", async () => {
    const out = await query("SELECT * FROM customers");
    expect(out.row_count).toBe(3);
    expect(out.rows.map((r: { id: string }) => r.id)).toEqual(["cust_001", "cust_002", "cust_003"]);
  });

  it("filters on a string, number or boolean literal and limits, in any keyword case", async () => {
    const acme = await query("select * from Orders where customer_id = 'cust_001' limit 3;");
    expect(acme.row_count).toBe(3);
    expect(acme.rows.every((r: { customer_id: string }) => r.customer_id === "cust_001")).toBe(true);

    const unpaid = await query("SELECT * FROM invoices WHERE paid = false");
    expect(unpaid.rows.map((r: { id: string }) => r.id)).toEqual(["inv_9002"]);

    const zero = await query("SELECT * FROM invoices WHERE amount_usd = 0");
    expect(zero.rows.map((r: { id: string }) => r.id)).toEqual(["inv_9004"]);

    const quoted = await query("SELECT * FROM customers WHERE name = 'O''Brien'");
    expect(quoted).toEqual({ rows: [], row_count: 0 });
    expect(summarizeOutcome({ output: quoted }).kind).toBe("empty");
  });

  it("returns every order of the 35-order customer without a limit", async () => {
    expect((await query("SELECT * FROM orders WHERE customer_id = 'cust_001'")).row_count).toBe(35);
  });

  it("fails the same way on every try for a missing relation", async () => {
    const errors = await Promise.all([1, 2].map(() => query("SELECT * FROM accounts").catch((e: unknown) => e)));
    for (const error of errors) {
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toMatch(/^relation "accounts" does not exist/);
    }
    expect(summarizeOutcome({ error: errors[0] })).toEqual(summarizeOutcome({ error: errors[1] }));
  });

  it("names the columns when the WHERE column is unknown", async () => {
    await expect(query("SELECT * FROM orders WHERE total = 5")).rejects.toMatchObject({
      code: "UNKNOWN_COLUMN",
      message: expect.stringContaining("amount_usd"),
    });
  });

  it.each([
    "SELECT id FROM orders",
    "DELETE FROM orders",
    "SELECT * FROM orders; DROP TABLE orders",
    "SELECT * FROM orders WHERE id = 'x' OR 1 = 1",
    "SELECT * FROM orders LIMIT -1",
    "SELECT * FROM \"orders\"",
  ])("throws a clear error for unsupported SQL: %s", async (sql) => {
    await expect(query(sql)).rejects.toMatchObject({
      code: "UNSUPPORTED_SQL",
      message: expect.stringContaining("SELECT * FROM <table>"),
    });
  });

  it("answers the same input identically", async () => {
    const sql = "SELECT * FROM invoices WHERE customer_id = 'cust_001'";
    expect(await query(sql)).toEqual(await query(sql));
  });

  it.each([{}, { sql: "" }, { sql: "x".repeat(2_001) }])("rejects %j", async (args) => {
    await expect(run(queryDatabase, args)).rejects.toThrow(SCHEMA_REJECTION);
  });
});
