// `npm start`: serves the demo app and its vendor on one origin and prints the one URL to open.
import { startDemo } from './serve.mjs';

const demo = await startDemo({ port: Number(process.env.PORT ?? 5173) });
console.log(`Stitch demo: ${demo.url}`);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    demo.close().finally(() => process.exit(0));
  });
}
