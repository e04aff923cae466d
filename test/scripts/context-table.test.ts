import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../breaker/index.js";
import { CONTEXT_FIELDS, parseContext } from "../../graphs/context.js";
import { CONTEXT_SPEC } from "../../graphs/context-spec.js";
import { knobLimits, LIMIT_KNOBS } from "../../graphs/limit-knobs.js";
import { contextFieldDocs, contextTable, withContextTable } from "../../scripts/context-table.js";

const readme = () => readFile(new URL("../../README.md", import.meta.url), "utf8");

describe("the README's configuration table", () => {
  it("is generated from the context declaration (run `npm run context-table` after changing graphs/context-spec.ts)", async () => {
    const text = await readme();
    expect(withContextTable(text, contextTable(await contextFieldDocs()))).toBe(text);
  });

  it("has one row per context field, each with its description, and states the default deployment's value of every bounded knob", async () => {
    const docs = await contextFieldDocs();
    const table = contextTable(docs);
    for (const field of CONTEXT_FIELDS) {
      expect(docs[field], field).toMatch(/\w/);
      expect(table, field).toContain(`| \`${field}\` |`);
    }
    for (const [knob, value] of Object.entries(knobLimits(DEFAULT_POLICY))) {
      expect(table).toMatch(new RegExp(`^\\| \`${knob}\` \\|.*\\| the deployment's \\(${value} by default\\) \\|`, "m"));
    }
  });

  it("fails on a field without a doc comment, which Studio would show without a description", async () => {
    const docs = await contextFieldDocs();
    delete docs.maxCallsPerRun;
    expect(() => contextTable(docs)).toThrow(/"maxCallsPerRun" has no doc comment/);
  });

  it("refuses a README without its markers", () => {
    expect(() => withContextTable("# no table here\n", "| x |")).toThrow(/lacks the <!-- context:start/);
  });
});

describe("the context declaration", () => {
  it("names in each limit's description which way a run may move it, as the ceiling check holds it", async () => {
    const docs = await contextFieldDocs();
    for (const knob of LIMIT_KNOBS) {
      const { bound } = CONTEXT_SPEC[knob];
      if (bound === "ceiling") expect(docs[knob], knob).toMatch(/At most the deployment's\.$/);
      if (bound === "floor") expect(docs[knob], knob).toMatch(/At least the deployment's\.$/);
      if (bound === "warning") expect(docs[knob], knob).toMatch(/warnings only/);
    }
  });

  it("fills every value field and leaves every limit unset in an empty context", () => {
    const ctx = parseContext({}, {});
    for (const field of CONTEXT_FIELDS) {
      if (CONTEXT_SPEC[field].kind === "limit") expect(ctx[field], field).toBeUndefined();
      else expect(ctx[field], field).toBeDefined();
    }
  });
});
