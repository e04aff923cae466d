import { inspect } from "node:util";
import { vi } from "vitest";

const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

/** Everything the process prints while capturing: console calls and raw stdout/stderr writes (still passed through). */
export interface OutputCapture {
  text(): string;
  restore(): void;
}

/** Start recording console output and stdout/stderr writes. */
export function captureOutput(): OutputCapture {
  const spies = [
    ...CONSOLE_METHODS.map((name) => vi.spyOn(console, name)),
    vi.spyOn(process.stdout, "write"),
    vi.spyOn(process.stderr, "write"),
  ];
  return {
    text: () => spies.flatMap((spy) => spy.mock.calls.map((args) => args.map((a) => (typeof a === "string" ? a : inspect(a, { depth: 10 }))).join(" "))).join("\n"),
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

/** Every way a value can end up in a log line: its inspection (hidden fields, causes) and, for errors, message and stack. */
export function renderings(value: unknown): string {
  const parts = [inspect(value, { depth: 30, showHidden: true, maxArrayLength: null, maxStringLength: null })];
  if (value instanceof Error) parts.push(value.message, value.stack ?? "", String(value.cause ?? ""));
  try {
    parts.push(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)) ?? "");
  } catch {
    // Circular values: the inspection above covers them.
  }
  return parts.join("\n");
}
