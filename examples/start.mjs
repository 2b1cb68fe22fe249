// Serves the demo app with Vite on localhost and prints its URL.
import { createServer } from 'vite';

const server = await createServer({
  root: new URL('./app/', import.meta.url).pathname,
  server: { host: '127.0.0.1', port: Number(process.env.PORT ?? 5173) },
  logLevel: 'warn',
});
await server.listen();
console.log(`Stitch demo: ${server.resolvedUrls?.local[0]}`);
