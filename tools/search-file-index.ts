import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { FILE_INDEX } from "./fixtures/files.js";

const schema = z.object({
  pattern: z
    .string()
    .trim()
    .min(1)
    .describe('Text to find in a file path or title, case-insensitive; "*" matches any run of characters, e.g. "q3" or "reports/*.md".'),
});

function patternRegex(pattern: string): RegExp {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(escaped.join(".*"), "i");
}

/** File index search; some entries carry paths read_file_contents rejects, which seeds the ping-pong scenario. */
export const searchFileIndex = defineTool(
  {
    name: "search_file_index",
    description:
      "Search the document index by path or title. Returns entries with path, title and size. Read a file's text with read_file_contents.",
    schema,
    nature: "read_only",
    timeoutMs: 5_000,
    examples: [{ pattern: "summary" }, { pattern: "reports/*.md" }],
  },
  ({ pattern }) => {
    const re = patternRegex(pattern);
    return { entries: FILE_INDEX.filter((e) => re.test(e.path) || re.test(e.title)).map((e) => ({ ...e })) };
  },
);
