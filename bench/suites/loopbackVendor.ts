/**
 * The vendor of the engine-overhead suite, in a process of its own (forked by overhead.ts) so
 * its work does not share the client's event loop: a keep-alive node:http server on 127.0.0.1
 * that answers every request at once with a small JSON body. It reports its port over IPC and
 * exits when its parent disconnects.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({ id: 7, name: 'Ada Lovelace', email: 'ada@example.com', active: true });
const headers = {
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(body)),
};

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
