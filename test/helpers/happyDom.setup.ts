/**
 * The `react` project: a happy-dom document in a Node environment (see ./happyDom.ts): the hooks
 * are tested against a real socket, and an abort reaches that socket exactly as in production.
 */
import { afterAll } from 'vitest';
import { installHappyDom } from './happyDom';

const window = installHappyDom({ act: true });

afterAll(async () => {
  await window.happyDOM.close();
});
