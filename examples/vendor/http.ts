/** Small `node:http` helpers for the demo vendor: JSON answers, bodies that notice a hang-up, 4xx errors. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request the vendor refuses; the message becomes the `{ error }` of the answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The status and body to answer for anything a handler threw. */
export function errorAnswer(error: unknown): [number, { error: string }] {
  return error instanceof HttpError
    ? [error.status, { error: error.message }]
    : [500, { error: String(error) }];
}

/** Writes a complete JSON answer, unless the exchange is already over (hung up, destroyed, answered). */
export function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    // The demo shows Stitch's cache; a browser cache answering instead would hide it.
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/**
 * Reads the body to its end, handing each chunk to `take`. Resolves `false` if the client hung up
 * before sending all of it: the caller then stops, and the response's 'close' records the hang-up.
 */
export async function consume(req: IncomingMessage, take: (chunk: Buffer) => void): Promise<boolean> {
  try {
    for await (const chunk of req) take(chunk as Buffer);
  } catch {
    return false; // 'aborted' / ECONNRESET: the upload was cut
  }
  return req.complete;
}

/** The body parsed as JSON, or `undefined` if the client hung up first. Throws a 400 if it is not JSON. */
export async function readJson(req: IncomingMessage): Promise<{ value: unknown } | undefined> {
  const chunks: Buffer[] = [];
  if (!(await consume(req, (chunk) => chunks.push(chunk)))) return undefined;
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    throw new HttpError(400, 'the body must be JSON');
  }
}
