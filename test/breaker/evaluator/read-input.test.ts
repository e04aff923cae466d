import { describe, expect, it } from "vitest";
import { lineAt, scanJson } from "../../../breaker/evaluator/json-scan.js";
import { InputError, readTrajectoryItems } from "../../../breaker/evaluator/read-input.js";

const one = { id: "a", toolCalls: [{ name: "t", args: {} }] };
const two = { id: "b", messages: [{ role: "user", content: "hi" }] };

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("expected an InputError");
}

describe("readTrajectoryItems", () => {
  it("reads one trajectory object", () => {
    expect(readTrajectoryItems(`\n${JSON.stringify(one, null, 2)}`, "f.json")).toEqual([{ value: one, line: 2 }]);
  });

  it("reads an array of trajectories with the line each starts on", () => {
    const text = `[\n  ${JSON.stringify(one)},\n\n  ${JSON.stringify(two)}\n]`;
    expect(readTrajectoryItems(text, "f.json")).toEqual([
      { value: one, line: 2 },
      { value: two, line: 4 },
    ]);
  });

  it("reads a bare array of chat messages as one trajectory", () => {
    const messages = [{ role: "user", content: "hi" }];
    expect(readTrajectoryItems(JSON.stringify(messages), "f.json")).toEqual([{ value: messages, line: 1 }]);
  });

  it("reads JSON Lines, skipping blank lines", () => {
    const text = `${JSON.stringify(one)}\n\n${JSON.stringify(two)}\n`;
    expect(readTrajectoryItems(text, "f.jsonl")).toEqual([
      { value: one, line: 1 },
      { value: two, line: 3 },
    ]);
  });

  it("names the file and line of a broken JSON Lines record", () => {
    const text = `${JSON.stringify(one)}\n${JSON.stringify(two)}\n{"id": "c", "toolCalls": [}\n`;
    const error = errorOf(() => readTrajectoryItems(text, "runs.jsonl"));
    expect(error).toMatchObject({ file: "runs.jsonl", line: 3, code: "INVALID_TRAJECTORY" });
    expect(error.message).toMatch(/^runs\.jsonl:3: invalid JSON/);
  });

  it("names the line where a pretty-printed document breaks", () => {
    const text = '{\n  "id": "x",\n  "toolCalls": [\n    {"name": "t", "args": {}},\n    {"name": "u" "args": {}}\n  ]\n}';
    expect(errorOf(() => readTrajectoryItems(text, "t.json"))).toMatchObject({ line: 5 });
  });

  it("reports an empty file", () => {
    expect(errorOf(() => readTrajectoryItems("  \n", "empty.json")).message).toBe("empty.json:1: the file is empty.");
  });
});

describe("scanJson", () => {
  it("accepts what JSON.parse accepts", () => {
    for (const text of ['{"a":[1,-2.5e3,true,null,"x\\"y"]}', "[]", " 3 ", '"s"']) expect(scanJson(text).error).toBeUndefined();
  });

  it("locates the first error", () => {
    const text = '[1,\n 2,\n oops]';
    const { error } = scanJson(text);
    expect(lineAt(text, error!.offset)).toBe(3);
    expect(scanJson('{"a":1} x').error?.reason).toMatch(/after the end/);
    expect(scanJson("[".repeat(5_000)).error?.reason).toBe("nested too deeply");
  });
});
