/** Small statistics helpers shared by the suites. */

/** The median of `values` (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The `p`-th percentile (0–100) of `sorted` (ascending), nearest-rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** One figure measured in several runs: every run's value, and their median. */
export interface Sample {
  median: number;
  runs: number[];
}

export const sample = (runs: number[]): Sample => ({ median: median(runs), runs });

/** Turns a list of per-run records into one {@link Sample} per numeric field. */
export function summarize<TKey extends string>(
  records: ReadonlyArray<Record<TKey, number>>,
): Record<TKey, Sample> {
  const out = {} as Record<TKey, Sample>;
  const first = records[0];
  if (!first) return out;
  for (const key of Object.keys(first) as TKey[]) out[key] = sample(records.map((record) => record[key]));
  return out;
}

/** Resolves after `ms` of real time (benchmarks run on the wall clock). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How many runs each measurement takes (its median is reported); at least 5. */
export const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 5) || 5);
