import type { StructuredToolInterface } from "@langchain/core/tools";
import type { ToolMessage } from "@langchain/core/messages";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { route } from "../../nodes/route.js";
import { createToolsNode } from "../../nodes/tools.js";
import { declaredNature, EXAMPLE_TOOLS, resetToolFixtures, toolExamples, toolTimeoutMs } from "../../tools/index.js";
import { checkedState, configWith, testResolver, textOf } from "../support/graph-helpers.js";

// Every check below runs on every tool of the list in tools/index.ts: a new tool is
// tested by joining the list, with no test of its own and no name pinned here.

const shapeOf = (tool: StructuredToolInterface) => (tool.schema as z.ZodObject).shape as Record<string, z.ZodType>;

// Values of the wrong type for one field or another: a string field refuses an object, an object field a number.
const WRONG_VALUES: unknown[] = [{ not: "valid" }, 12_345, "not valid", true, null];

/** Arguments the tool's schema refuses: its first example with one field given a value of the wrong type. */
function invalidArgs(tool: StructuredToolInterface): { args: Record<string, unknown>; field: string } | undefined {
  const [example = {}] = toolExamples(tool);
  for (const field of Object.keys(shapeOf(tool))) {
    for (const wrong of WRONG_VALUES) {
      const args = { ...example, [field]: wrong };
      if (!(tool.schema as z.ZodObject).safeParse(args).success) return { args, field };
    }
  }
  return undefined;
}

/** The reply the graph's tools node gives one call (checked by the breaker first, as in the graph). */
async function replyOfToolsNode(tool: StructuredToolInterface, args: Record<string, unknown>): Promise<ToolMessage> {
  const { resolve } = testResolver({ tools: EXAMPLE_TOOLS });
  const config = configWith({}, `registry-${tool.name}`);
  const ask = new AIMessage({ content: "", tool_calls: [{ id: "c-1", name: tool.name, args, type: "tool_call" }] });
  const state = await checkedState(resolve, [new HumanMessage("Use the tool.")], ask, config);
  expect(route(state)).toBe("tools");
  const update = await createToolsNode(resolve)(state, config);
  const [reply] = (Array.isArray(update) ? [] : (update.messages ?? [])) as ToolMessage[];
  return reply!;
}

describe("the tool list", () => {
  it("names every tool once, in snake_case", () => {
    const names = EXAMPLE_TOOLS.map((t) => t.name);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});

describe.each(EXAMPLE_TOOLS.map((t) => [t.name, t] as const))("tool %s", (_name, tool) => {
  beforeEach(() => resetToolFixtures());

  it("describes itself and every argument for the model", () => {
    expect(tool.description.length).toBeGreaterThan(30);
    const shape = shapeOf(tool);
    expect(Object.keys(shape).length).toBeGreaterThan(0);
    for (const [field, schema] of Object.entries(shape)) expect(schema.description, field).toBeTruthy();
  });

  it("declares its nature and its timeout", () => {
    expect(declaredNature(tool)).toBeDefined();
    expect((tool as { metadata?: Record<string, unknown> }).metadata?.timeoutMs).toBe(toolTimeoutMs(tool));
  });

  it("declares example arguments its schema accepts", () => {
    const examples = toolExamples(tool);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect((tool.schema as z.ZodObject).safeParse(example).error?.issues ?? []).toEqual([]);
  });

  it("answers each example with JSON-serializable output", async () => {
    const examples = toolExamples(tool);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const output = await tool.invoke(example);
      expect(output, JSON.stringify(example)).not.toBeUndefined();
      expect(JSON.parse(JSON.stringify(output))).toEqual(output);
    }
  });

  it("answers invalid arguments, through the tools node, with an error reply naming the field", async () => {
    const invalid = invalidArgs(tool);
    expect(invalid, "no field of the schema refuses a value of the wrong type").toBeDefined();
    const reply = await replyOfToolsNode(tool, invalid!.args);
    expect(reply.status).toBe("error");
    expect(textOf(reply)).toMatch(new RegExp(`^Error: Invalid arguments for ${tool.name}: .*\\b${invalid!.field}: `));
  });
});
