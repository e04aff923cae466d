import type { Spread } from "../lib/stats.js";

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A number with few significant digits: 0.412, 12.3, 1,234. */
export function num(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  const abs = Math.abs(value);
  if (Number.isInteger(value) || abs >= 1_000) return integer.format(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** A median with its min-max range: "12.3 (11.9–13.0)". */
export function spread(value: Spread, unit = ""): string {
  return `${num(value.median)}${unit} (${num(value.min)}–${num(value.max)})`;
}

/** Whole tokens with thousands separators. */
export function tokens(value: number): string {
  return integer.format(value);
}

/** Dollars with cents, thousands separated. */
export function dollars(value: number): string {
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** A ratio: "1.23x". */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : "n/a";
}

/** A target's value in its unit: "1.23x", "$1.80", "14.2 µs". */
export function unitValue(unit: string, value: number): string {
  if (unit === "x") return ratio(value);
  if (unit === "$") return dollars(value);
  return `${num(value)} ${unit}`;
}
