/**
 * The fast-check run settings of a property test file: a seed printed on every run, so a failure
 * in CI replays locally with `FC_SEED=<seed>` (and `FC_PATH=<path>` for just the failing case);
 * `FC_RUNS` raises the number of cases.
 */
export function fastCheckRun(): { seed: number; numRuns: number; path?: string } {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
  console.log(`fast-check seed ${seed} (replay: FC_SEED=${seed})`);
  const numRuns = Number(process.env.FC_RUNS ?? 200);
  return process.env.FC_PATH ? { seed, numRuns, path: process.env.FC_PATH } : { seed, numRuns };
}
