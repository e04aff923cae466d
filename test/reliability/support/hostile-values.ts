import fc from "fast-check";

/** Code units that break naive string handling: lone surrogates, joiners, BOM, NUL, NFKC-folded forms, RTL marks. */
export const EDGE_UNITS = [
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\u0000",
  "\ufeff",
  "\u200d",
  "\u200b",
  "\u202e",
  "\u0301",
  "\ufb01",
  "\uff21",
  "\u2028",
  "\u2029",
  "\u{1f600}",
  "\u{10ffff}",
  "e\u0301",
  "\u00e9",
  "\"",
  "\\",
  "{",
  "}",
] as const;

/** One string unit: any code point, or one of the edge units above. */
export const hostileUnit: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_UNITS) },
);

/** Strings made of hostile units (lone surrogates included). */
export const hostileString: fc.Arbitrary<string> = fc.string({ unit: hostileUnit, maxLength: 24 });

/** Object keys: hostile strings plus the keys that trip prototype-based code. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  fc.constantFrom("__proto__", "constructor", "toString", "toJSON", "valueOf", "hasOwnProperty", "request_id", "timestamp"),
);

/** Numbers JSON cannot hold exactly or at all. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.double(),
  fc.constantFrom(-0, 0, 1e308, -1e308, Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity, -Infinity),
);

/**
 * Anything a model or tool can hand the breaker: JSON plus BigInt, undefined,
 * Dates, Maps, Sets, typed and sparse arrays, null-prototype objects, boxed
 * values and the hostile strings, keys and numbers above.
 */
export const hostileValue: fc.Arbitrary<unknown> = fc.anything({
  key: hostileKey,
  values: [hostileString, hostileNumber, fc.bigInt(), fc.boolean(), fc.constant(null), fc.constant(undefined)],
  maxDepth: 4,
  maxKeys: 6,
  withBigInt: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withTypedArray: true,
  withSparseArray: true,
  withBoxedValues: true,
  withObjectString: true,
});

/** Plain JSON with hostile strings and keys: what key-order properties are stated over. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(hostileKey, tie("value"), { maxKeys: 6 }),
  ),
})).value;

/** Objects nested `depth` levels deep, ending in `leaf`. */
export function nested(depth: number, leaf: unknown = "bottom"): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = { level: value };
  return value;
}

/** Arrays nested `depth` levels deep. */
export function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** An object that contains itself, as tool code that returns a live graph of objects might. */
export function circular(): Record<string, unknown> {
  const node: Record<string, unknown> = { name: "node", children: [] };
  (node.children as unknown[]).push(node);
  node.self = node;
  node.parent = { child: node };
  return node;
}

/** An object whose enumerable getter throws when serialized. */
export function throwingGetter(): object {
  return Object.defineProperty({ ok: 1 }, "boom", {
    enumerable: true,
    get() {
      throw new Error("getter exploded");
    },
  });
}

/** A proxy whose key listing throws. */
export function throwingProxy(): object {
  return new Proxy({}, { ownKeys: () => { throw new Error("ownKeys trap exploded"); } });
}

/** One megabyte of text. */
export const MEGABYTE_STRING = "\u00e9x".repeat(512 * 1024);

/**
 * Named values the breaker must survive, each the worst of its kind. Built
 * fresh per call so tests and the child process see identical inputs.
 */
export function namedHostileValues(): [string, unknown][] {
  return [
    ["objects nested 1,000 levels", nested(1_000)],
    ["arrays nested 1,000 levels", nestedArrays(1_000)],
    ["a 1 MB string", { text: MEGABYTE_STRING }],
    ["lone surrogates", { high: "\ud800", low: "\udfff", reversed: "\udc00\ud800", ["\ud83d"]: "key" }],
    ["other Unicode edge cases", { bom: "\ufeffx", nul: "a\u0000b", zwj: "\u{1f468}\u200d\u{1f469}", rtl: "\u202eabc", nfkc: "\ufb01\uff21" }],
    ["-0", { zero: -0, list: [-0, 0] }],
    ["1e308 and friends", { big: 1e308, max: Number.MAX_VALUE, tiny: Number.MIN_VALUE, nan: NaN, inf: -Infinity }],
    ["BigInt", { big: 10n ** 40n, neg: -1n }],
    ["undefined", undefined],
    ["undefined members", { a: undefined, list: [undefined, 1] }],
    ["a circular reference", circular()],
    ["a throwing getter", throwingGetter()],
    ["a throwing proxy", throwingProxy()],
    ["a throwing toJSON", { toJSON: () => { throw new Error("toJSON exploded"); } }],
    ["a null-prototype object", Object.assign(Object.create(null) as object, { a: 1 })],
    ["a __proto__ own key", JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown],
    ["Map, Set, Date", { map: new Map([["k", 1]]), set: new Set([1]), date: new Date(0) }],
    ["a symbol and a function", { sym: Symbol("s"), fn: () => 1 }],
  ];
}

/** The hostile values `count` of them, reproducibly drawn from `seed`. */
export function sampledHostileValues(seed: number, count: number): unknown[] {
  return fc.sample(hostileValue, { seed, numRuns: count });
}
