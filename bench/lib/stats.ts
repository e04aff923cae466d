/** A value measured over several repetitions: the median, with the range it moved in. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** The p-th percentile (0..100) of ascending values, by linear interpolation between ranks. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = (Math.min(Math.max(p, 0), 100) / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Values sorted ascending, as a new array. */
export function ascending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Median and min-max of a set of per-repetition values. */
export function spreadOf(values: readonly number[]): Spread {
  const sorted = ascending(values);
  return { median: percentile(sorted, 50), min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN };
}

/** Per-repetition ratios of two measurements taken in the same repetitions (paired, so drift cancels). */
export function pairedRatio(numerators: readonly number[], denominators: readonly number[]): Spread {
  return spreadOf(numerators.map((n, i) => n / denominators[i]!));
}
