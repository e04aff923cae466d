/** How the numbers are taken, written into the report next to them. */
export function methodology(quick: boolean): string[] {
  return [
    "Each section runs in a fresh Node process, so JIT state, caches and garbage left by one section (object shapes from the Redis paths, for instance) cannot slow or speed up the next.",
    "Every workload is warmed up (untimed) before it is measured, then measured in several repetitions; repetition 1 of every workload in a section runs before repetition 2 of any, so drift on the machine hits baselines and subjects alike.",
    "Each operation is timed on its own with process.hrtime.bigint(). A table cell reads `median (min–max)`: the median over repetitions of that repetition's figure (p50, p99 or operations per second), and the range it moved in across repetitions.",
    "Ratios are computed per repetition from measurements taken side by side, then summarised the same way.",
    "Operations per second divide the operations of a repetition by the time spent in its timed batches; work done between batches (reporting tool outcomes) is not timed and not counted.",
    "The benchmark starts its own redis-server on a free port (no persistence); nothing else talks to it.",
    quick
      ? "This was a --quick run: the same sections with about an eighth of the iterations and 3 repetitions. Use it to check the bench works, not for figures."
      : "Full run: see each section's plan in bench/results/latest.json for warm-up, batch and repetition counts.",
  ];
}
