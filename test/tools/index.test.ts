import { describe, expect, it } from "vitest";
import {
  EXAMPLE_TOOLS,
  checkJobStatus,
  resetToolFixtures,
  sendEmail,
  sentEmails,
  toolNature,
  toolTimeoutMs,
} from "../../tools/index.js";
import { run } from "./invoke.js";

const EXPECTED_NATURES: Record<string, string> = {
  query_crm: "read_only",
  get_financials: "read_only",
  kb_search: "pagination",
  search_file_index: "read_only",
  read_file_contents: "read_only",
  query_database: "read_only",
  list_orders: "pagination",
  check_job_status: "polling",
  send_email: "side_effecting",
};

// One valid call per tool, so every registered tool is exercised end to end.
const SAMPLE_ARGS: Record<string, Record<string, unknown>> = {
  query_crm: { company_name: "Acme Corp" },
  get_financials: { account_id: "acc_001" },
  kb_search: { query: "billing" },
  search_file_index: { pattern: "summary" },
  read_file_contents: { path: "docs/readme.md" },
  query_database: { sql: "SELECT * FROM invoices" },
  list_orders: { customer_id: "cust_001" },
  check_job_status: { job_id: "export-7" },
  send_email: { to: "ops@example.com", subject: "Hi", body: "Hello" },
};

describe("EXAMPLE_TOOLS", () => {
  it("registers exactly the fixed tool names, once each", () => {
    const names = EXAMPLE_TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(EXPECTED_NATURES).sort());
  });

  it.each(Object.entries(EXPECTED_NATURES))("%s declares nature %s", (name, nature) => {
    const tool = EXAMPLE_TOOLS.find((t) => t.name === name);
    expect(tool).toBeDefined();
    expect(toolNature(tool!)).toBe(nature);
  });

  it("declares a timeout on every tool, in metadata rather than by default", () => {
    for (const tool of EXAMPLE_TOOLS) {
      const declared = (tool as { metadata?: Record<string, unknown> }).metadata?.timeoutMs;
      expect(declared, tool.name).toBe(toolTimeoutMs(tool));
      expect(toolTimeoutMs(tool)).toBeGreaterThan(0);
    }
  });

  it("describes the tool and every schema field for the model", () => {
    for (const tool of EXAMPLE_TOOLS) {
      expect(tool.description.length, tool.name).toBeGreaterThan(30);
      const shape = (tool.schema as { shape: Record<string, { description?: string }> }).shape;
      for (const [field, schema] of Object.entries(shape)) {
        expect(schema.description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
  });

  it.each(EXAMPLE_TOOLS.map((t) => [t.name, t] as const))("%s returns JSON-serializable output", async (name, tool) => {
    resetToolFixtures();
    const output = await run(tool, SAMPLE_ARGS[name]!);
    expect(output).toBeTypeOf("object");
    expect(JSON.parse(JSON.stringify(output))).toEqual(output);
  });
});

describe("resetToolFixtures", () => {
  it("restarts job polls and empties the outbox", async () => {
    resetToolFixtures();
    await run(checkJobStatus, { job_id: "export-7" });
    await run(checkJobStatus, { job_id: "export-7" });
    await run(sendEmail, SAMPLE_ARGS.send_email!);
    expect(sentEmails()).toHaveLength(1);

    resetToolFixtures();
    expect(sentEmails()).toEqual([]);
    expect((await run(checkJobStatus, { job_id: "export-7" })).status).toBe("queued");
  });
});
