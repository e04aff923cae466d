/** What a scan of a JSON text found: where it breaks, if it does, and where the top-level array's items start. */
export interface JsonScan {
  /** Offset and reason of the first syntax error. */
  error?: { offset: number; reason: string };
  /** Offsets of the top-level array's elements (empty when the text is not an array). */
  elements: number[];
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
// Deeper than any real trajectory; keeps hostile input from exhausting the stack.
const MAX_DEPTH = 1_000;

/**
 * Scan JSON without building it, to say where it breaks: Node 20's
 * JSON.parse reports no position, and a user fixing a file needs the line.
 */
export function scanJson(text: string): JsonScan {
  const elements: number[] = [];
  let at = 0;
  const skip = () => {
    while (at < text.length && WHITESPACE.has(text[at]!)) at++;
  };
  const fail = (reason: string): never => {
    throw new ScanError(at, at >= text.length ? "unexpected end of input" : reason);
  };
  const expect = (char: string) => {
    skip();
    if (text[at] !== char) fail(`expected '${char}'`);
    at++;
  };
  const string = () => {
    at++;
    while (at < text.length && text[at] !== '"') {
      const code = text.charCodeAt(at);
      if (code < 0x20) fail("unescaped control character in a string");
      at += text[at] === "\\" ? 2 : 1;
    }
    if (at >= text.length) fail("unterminated string");
    at++;
  };
  const match = (pattern: RegExp) => {
    pattern.lastIndex = at;
    if (!pattern.test(text)) fail(`unexpected '${text[at]}'`);
    at = pattern.lastIndex;
  };
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) fail("nested too deeply");
    skip();
    const char = text[at];
    if (char === "{") {
      at++;
      skip();
      if (text[at] === "}") return void at++;
      for (;;) {
        skip();
        if (text[at] !== '"') fail("expected a property name in double quotes");
        string();
        expect(":");
        value(depth + 1);
        skip();
        if (text[at] === ",") at++;
        else return expect("}");
      }
    }
    if (char === "[") {
      at++;
      skip();
      if (text[at] === "]") return void at++;
      for (;;) {
        skip();
        if (depth === 0) elements.push(at);
        value(depth + 1);
        skip();
        if (text[at] === ",") at++;
        else return expect("]");
      }
    }
    if (char === '"') return string();
    if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) return match(NUMBER);
    return match(LITERAL);
  };
  try {
    value(0);
    skip();
    if (at < text.length) fail(`unexpected '${text[at]}' after the end of the JSON value`);
    return { elements };
  } catch (error) {
    if (!(error instanceof ScanError)) throw error;
    return { error: { offset: error.offset, reason: error.reason }, elements };
  }
}

/** 1-based line of an offset in a text. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
