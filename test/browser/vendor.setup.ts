/**
 * The browser project's global setup: a vendor on 127.0.0.1 that a page in Chromium can call
 * (CORS), which redirects, records what reached it and answers with the body it got. Its origin
 * is provided as `vendor`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The browser vendor's origin: `GET /log?under=/a` lists what reached `/a/…` (`METHOD path`). */
    vendor: string;
  }
}

/** Where each route redirects (relative to it), and with which status. */
const REDIRECTS: Record<string, [status: number, location: string]> = {
  charge: [303, 'receipt'],
  old: [302, 'new'],
};

export default async function setup(project: TestProject) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-methods', 'GET, POST, PUT');
    res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? '');
    const url = new URL(req.url ?? '/', 'http://vendor');
    if (req.method === 'OPTIONS') return res.writeHead(204).end();
    if (url.pathname === '/log') {
      const under = url.searchParams.get('under') ?? '';
      const lines = seen.filter((line) => line.split(' ')[1]?.startsWith(`${under}/`));
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(lines));
    }
    seen.push(`${req.method} ${url.pathname}`);
    const redirect = REDIRECTS[url.pathname.split('/').at(-1) ?? ''];
    if (redirect) return res.writeHead(redirect[0], { location: redirect[1] }).end();
    // What arrived: the body's bytes and content type.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const type = req.headers['content-type'] ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ at: url.pathname, body, type }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('vendor', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
