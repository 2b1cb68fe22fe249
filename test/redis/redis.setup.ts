/** The Redis project's global setup: says how to run the suite when redis-server is missing. */
import { HOW_TO_RUN, redisServerPath } from './server';

export default function setup() {
  if (redisServerPath()) return;
  if (process.env.CI) throw new Error(`${HOW_TO_RUN} CI must run it: .ci/run installs redis-server.`);
  console.warn(`\n  ${HOW_TO_RUN}\n`);
}
