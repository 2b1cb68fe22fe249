/**
 * How a suite talks to bench/main: it runs in its own process, logs progress on stderr and
 * writes its result as JSON to the file named by its first argument.
 */
import { writeFileSync } from 'node:fs';

export function log(message: string): void {
  process.stderr.write(`  ${message}\n`);
}

/** Writes the suite's result and exits (libraries may leave timers behind on purpose). */
export function finish(result: unknown): never {
  const out = process.argv[2];
  if (!out) throw new Error('usage: node <suite>.mjs <result.json>');
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  process.exit(0);
}

/** Runs `main`, reporting a failure with its stack and a non-zero exit code. */
export function runSuite(main: () => Promise<unknown>): void {
  main().then(finish, (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
