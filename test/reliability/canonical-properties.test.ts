import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalArgs, canonicalOutput, fingerprintArgs, fingerprintOutput } from "../../breaker/index.js";
import { reportFigures } from "./support/figures.js";
import { fingerprintTable, type FingerprintRow } from "./support/fingerprint-table.js";
import { hostileJson, hostileKey, hostileString, hostileValue, namedHostileValues } from "./support/hostile-values.js";

const FINGERPRINT = /^[A-Za-z0-9_-]{22}$/;
const RUNS = { keyOrder: 500, normalization: 500, distinct: 500, volatile: 300, anything: 1_000 };
/** Where a window entry stops storing an argument's text; its hash covers the whole. */
const STORED_ARGS_CHARS = 2_048;

/** Record what a property ran, for docs/RELIABILITY.md section 1. */
function report(scenario: string, figures: Record<string, number>): void {
  reportFigures({ section: "hostile", scenario, figures }, `canonical ${scenario}: ${JSON.stringify(figures)}`);
}
const CHILD = fileURLToPath(new URL("./support/fingerprint-child.ts", import.meta.url));

// A deterministic shuffle: the same seed reorders the same way, so a failure replays.
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s ^ (s >>> 15), 2_246_822_519) + 0x9e3779b9) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The same value with every object's keys inserted in another order (own data properties, so "__proto__" stays a key). */
function reordered(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => reordered(v, seed + i));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value).map(([k, v], i): [string, unknown] => [k, reordered(v, seed + i + 1)]);
  return Object.fromEntries(shuffled(entries, seed));
}

describe("canonical fingerprints (property-based)", () => {
  it("never depend on key order, for arguments or outputs", () => {
    const inner = fc.dictionary(hostileKey, hostileJson, { minKeys: 2, maxKeys: 6 });
    const objects = fc.dictionary(hostileKey, fc.oneof(hostileJson, inner, fc.array(inner, { maxLength: 3 })), { minKeys: 2, maxKeys: 8 });
    let reorderedRuns = 0;
    fc.assert(
      fc.property(objects, fc.integer(), (value, seed) => {
        const other = reordered(value, seed);
        if (JSON.stringify(other) !== JSON.stringify(value)) reorderedRuns++;
        expect(canonicalArgs(other)).toBe(canonicalArgs(value));
        expect(fingerprintArgs(other)).toBe(fingerprintArgs(value));
        expect(fingerprintOutput(other)).toBe(fingerprintOutput(value));
      }),
      { numRuns: RUNS.keyOrder },
    );
    // Most runs really changed the key order (naive JSON differs), so the property is not vacuous.
    expect(reorderedRuns).toBeGreaterThan(RUNS.keyOrder / 2);
    report("key-order", { runs: RUNS.keyOrder, reordered: reorderedRuns });
  });

  it("ignore Unicode normalization form, surrounding whitespace and the sign of zero in arguments", () => {
    fc.assert(
      fc.property(hostileString, fc.constantFrom("NFC", "NFD", "NFKC", "NFKD") as fc.Arbitrary<"NFC" | "NFD" | "NFKC" | "NFKD">, (text, form) => {
        expect(fingerprintArgs({ q: ` \t${text.normalize(form)}\n` })).toBe(fingerprintArgs({ q: text }));
      }),
      { numRuns: RUNS.normalization },
    );
    expect(fingerprintArgs({ offset: -0, list: [-0] })).toBe(fingerprintArgs({ offset: 0, list: [0] }));
    report("normalization", { runs: RUNS.normalization });
  });

  it("tell apart arguments whose canonical forms differ, however late the difference", () => {
    fc.assert(
      fc.property(hostileJson, hostileJson, (a, b) => {
        fc.pre(canonicalArgs(a) !== canonicalArgs(b));
        expect(fingerprintArgs(a)).not.toBe(fingerprintArgs(b));
      }),
      { numRuns: RUNS.distinct },
    );
    // Past the characters a window entry stores: the hash still covers everything.
    const long = "x".repeat(STORED_ARGS_CHARS * 2);
    expect(fingerprintArgs({ q: `${long}a` })).not.toBe(fingerprintArgs({ q: `${long}b` }));
    report("distinct", { runs: RUNS.distinct, storedChars: STORED_ARGS_CHARS, longChars: long.length + 1 });
  });

  it("ignore volatile fields (request ids, timestamps) in outputs, at any depth", () => {
    fc.assert(
      fc.property(fc.dictionary(hostileString, hostileJson, { maxKeys: 5 }), hostileString, fc.date({ noInvalidDate: true }), (body, id, when) => {
        const a = { ...body, request_id: "req-1", data: { ...body, fetched_at: "2020-01-01T00:00:00Z" } };
        const b = { ...body, request_id: id, data: { ...body, fetched_at: when.toISOString() } };
        expect(canonicalOutput(b)).toBe(canonicalOutput(a));
        expect(fingerprintOutput(b)).toBe(fingerprintOutput(a));
      }),
      { numRuns: RUNS.volatile },
    );
    report("volatile", { runs: RUNS.volatile });
  });

  it("exist for any value at all, without throwing", () => {
    fc.assert(
      fc.property(hostileValue, (value) => {
        expect(fingerprintArgs(value)).toMatch(FINGERPRINT);
        expect(fingerprintOutput(value)).toMatch(FINGERPRINT);
      }),
      { numRuns: RUNS.anything },
    );
    const named = namedHostileValues();
    for (const [, value] of named) {
      expect(fingerprintArgs(value)).toMatch(FINGERPRINT);
      expect(fingerprintOutput(value)).toMatch(FINGERPRINT);
    }
    report("anything", { runs: RUNS.anything, named: named.length });
  });

  it("are the same in a separate process with another time zone and locale", () => {
    const seed = 20_240_607;
    const count = 200;
    const child = execFileSync(process.execPath, ["--import", "tsx", CHILD, String(seed), String(count)], {
      env: { ...process.env, TZ: "Pacific/Kiritimati", LANG: "tr_TR.UTF-8", LC_ALL: "tr_TR.UTF-8" },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      timeout: 60_000,
    });
    const theirs = JSON.parse(child) as FingerprintRow[];
    const ours = fingerprintTable(seed, count);
    expect(theirs).toHaveLength(ours.length);
    expect(theirs).toEqual(ours);
    // The table is not degenerate: distinct inputs mostly hash apart.
    expect(new Set(ours.map((r) => r.args)).size).toBeGreaterThan(count / 2);
    report("other-process", { rows: ours.length, samples: count });
  });
});
