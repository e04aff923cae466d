import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { FILE_CONTENTS } from "./fixtures/files.js";
import { ToolError } from "./tool-error.js";

const schema = z.object({
  path: z.string().trim().min(1).describe('Relative POSIX path of the file, e.g. "docs/readme.md".'),
});

/** The format read_file_contents accepts, named in every path error so the model can fix its call. */
export const EXPECTED_PATH_FORMAT = 'a relative POSIX path such as "docs/readme.md" (no scheme, no #fragment, no drive letter or backslashes, no leading "/" or "." / ".." segments)';

// The first rule a path breaks, or undefined when it is a plain relative path.
function pathProblem(path: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return "it has a URI scheme";
  if (path.includes("#")) return "it has a #fragment";
  if (/^[a-z]:/i.test(path) || path.includes("\\")) return "it is a Windows path";
  if (path.startsWith("/")) return "it is absolute";
  if (path.split("/").some((s) => s === "" || s === "." || s === "..")) return "it has empty, . or .. segments";
  return undefined;
}

/**
 * Read a text file by relative path. Throws ToolError UNPARSEABLE_PATH for any
 * other path form (naming the expected one) and FILE_NOT_FOUND for a path with no file.
 */
export const readFileContents = defineTool(
  {
    name: "read_file_contents",
    description: `Read the text of a file. The path must be ${EXPECTED_PATH_FORMAT}.`,
    schema,
    nature: "read_only",
    timeoutMs: 5_000,
    examples: [{ path: "docs/readme.md" }],
  },
  ({ path }) => {
    const problem = pathProblem(path);
    if (problem) {
      throw new ToolError("UNPARSEABLE_PATH", `Cannot parse path "${path}": ${problem}. Expected ${EXPECTED_PATH_FORMAT}.`);
    }
    const content = FILE_CONTENTS[path];
    if (content === undefined) {
      throw new ToolError("FILE_NOT_FOUND", `No file at "${path}". search_file_index lists the files there are.`);
    }
    return { path, content, line_count: content.split("\n").length - (content.endsWith("\n") ? 1 : 0) };
  },
);
