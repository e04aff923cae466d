// `npm run context-table`: regenerate the README's configuration table from the run context's one declaration.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { DEFAULT_POLICY } from "../breaker/index.js";
import type { ContextField, LimitBound } from "../graphs/context-field.js";
import { CONTEXT_SPEC } from "../graphs/context-spec.js";
import { knobVariable, type LimitKnob } from "../graphs/limit-knobs.js";
import { withBlock } from "./readme-block.js";

const README = fileURLToPath(new URL("../README.md", import.meta.url));
const SPEC_FILE = fileURLToPath(new URL("../graphs/context-spec.ts", import.meta.url));
const START_MARK = "<!-- context:start (npm run context-table) -->";
const END_MARK = "<!-- context:end -->";

/**
 * The doc comment of every field of CONTEXT_SPEC, by name, read from its
 * source as the LangGraph server reads it for Studio's form: the description
 * is written once, where the field is declared.
 */
export async function contextFieldDocs(file = SPEC_FILE): Promise<Record<string, string>> {
  const source = ts.createSourceFile(file, await readFile(file, "utf8"), ts.ScriptTarget.Latest, true);
  let spec: ts.ObjectLiteralExpression | undefined;
  source.forEachChild(function visit(node) {
    if (ts.isVariableDeclaration(node) && node.name.getText() === "CONTEXT_SPEC" && node.initializer && ts.isObjectLiteralExpression(node.initializer)) {
      spec = node.initializer;
    }
    node.forEachChild(visit);
  });
  if (!spec) throw new Error(`${file} declares no CONTEXT_SPEC object.`);
  const docs: Record<string, string> = {};
  for (const property of spec.properties) {
    const comment = ts.getJSDocCommentsAndTags(property).find(ts.isJSDoc)?.comment;
    docs[property.name?.getText() ?? ""] = (ts.getTextOfJSDocComment(comment) ?? "").replace(/\s+/g, " ").trim();
  }
  return docs;
}

const RUN_MAY_SET: Record<LimitBound, string> = {
  ceiling: "at most the deployment's",
  floor: "at least the deployment's",
  warning: "any; it moves warnings only, never a refusal",
};

// A table cell: pipes escaped, and angle brackets outside code spans, which Markdown would take for HTML.
const cell = (text: string) =>
  text
    .split("`")
    .map((part, i) => (i % 2 === 1 ? part : part.replaceAll("<", "&lt;").replaceAll(">", "&gt;")))
    .join("`")
    .replaceAll("|", "\\|");

function row(name: string, field: ContextField, description: string): string {
  if (field.kind === "value") return `| \`${name}\` | ${cell(description)} | ${cell(field.whenEmpty)} | ${cell(field.runMaySet)} | |`;
  const deployment = field.inPolicy ? `the deployment's (${field.inPolicy(DEFAULT_POLICY)} by default)` : "the deployment's";
  const whenEmpty = field.whenEmpty ?? deployment;
  return `| \`${name}\` | ${cell(description)} | ${cell(whenEmpty)} | ${RUN_MAY_SET[field.bound]} | \`${knobVariable(name as LimitKnob)}\` |`;
}

/** The README's configuration table: one row per context field, in declaration order. */
export function contextTable(docs: Record<string, string>): string {
  const rows = Object.entries(CONTEXT_SPEC).map(([name, field]) => {
    const description = docs[name];
    if (!description) throw new Error(`Context field "${name}" has no doc comment in graphs/context-spec.ts: Studio's form and the README need one.`);
    return row(name, field, description);
  });
  return ["| context field | what it does | when empty | a run may set | the operator sets it with |", "|---|---|---|---|---|", ...rows].join("\n");
}

/** The README with its configuration table replaced by `table`. */
export function withContextTable(readme: string, table: string): string {
  return withBlock(readme, START_MARK, END_MARK, table);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const readme = await readFile(README, "utf8");
  const next = withContextTable(readme, contextTable(await contextFieldDocs()));
  if (next !== readme) await writeFile(README, next);
  console.log(next === readme ? "README configuration table is current." : "README configuration table updated.");
}
