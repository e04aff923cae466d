import { describe, expect, it } from "vitest";
import { ToolError } from "../../tools/index.js";
import { EXPECTED_PATH_FORMAT, readFileContents } from "../../tools/read-file-contents.js";
import { searchFileIndex } from "../../tools/search-file-index.js";
import { run, SCHEMA_REJECTION } from "./invoke.js";

describe("search_file_index", () => {
  it("finds entries by path or title, case-insensitively, with * wildcards", async () => {
    const paths = async (pattern: string) =>
      (await run(searchFileIndex, { pattern })).entries.map((e: { path: string }) => e.path);
    expect(await paths("Q3")).toEqual(["repo://reports/q3-summary.md#L1-L40", "C:\\Shared\\reports\\q3-revenue.md"]);
    expect(await paths("onboarding CHECKLIST")).toEqual(["docs/onboarding.md"]);
    expect(await paths("docs/*.md")).toEqual(["docs/readme.md", "docs/onboarding.md"]);
    expect(await paths("(q3)")).toEqual([]);
  });

  it("answers the same input identically", async () => {
    expect(await run(searchFileIndex, { pattern: "reports" })).toEqual(await run(searchFileIndex, { pattern: "reports" }));
  });

  it.each([{}, { pattern: "" }, { pattern: ["q3"] }])("rejects %j", async (args) => {
    await expect(run(searchFileIndex, args)).rejects.toThrow(SCHEMA_REJECTION);
  });
});

describe("read_file_contents", () => {
  it("reads a plain relative path", async () => {
    const out = await run(readFileContents, { path: "docs/readme.md" });
    expect(out.path).toBe("docs/readme.md");
    expect(out.content).toMatch(/^# Reports workspace/);
    expect(out.line_count).toBe(3);
    expect(await run(readFileContents, { path: "docs/readme.md" })).toEqual(out);
  });

  it("throws on every Q3 path the index hands out: the ping-pong pair", async () => {
    const { entries } = await run(searchFileIndex, { pattern: "q3" });
    expect(entries.length).toBeGreaterThan(0);
    for (const { path } of entries) {
      const error = await run(readFileContents, { path }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).code).toBe("UNPARSEABLE_PATH");
      expect((error as ToolError).message).toContain(EXPECTED_PATH_FORMAT);
    }
  });

  it("reads the Q3 summary once the path is rewritten to the expected format", async () => {
    expect((await run(readFileContents, { path: "reports/q3-summary.md" })).content).toContain("Q3 summary");
  });

  it.each(["/etc/passwd", "docs/../secrets.md", "./docs/readme.md", "docs//readme.md", "file:///docs/readme.md", "D:docs"])(
    "refuses the path %j",
    async (path) => {
      await expect(run(readFileContents, { path })).rejects.toMatchObject({ code: "UNPARSEABLE_PATH" });
    },
  );

  it("throws a not-found error for a well-formed path that does not exist", async () => {
    await expect(run(readFileContents, { path: "docs/missing.md" })).rejects.toMatchObject({
      code: "FILE_NOT_FOUND",
      message: expect.stringContaining("docs/missing.md"),
    });
  });

  it.each([{}, { path: "" }, { path: 7 }])("rejects %j", async (args) => {
    await expect(run(readFileContents, args)).rejects.toThrow(SCHEMA_REJECTION);
  });
});
