import type { IncomingMessage, ServerResponse } from 'node:http';

/** What `startDemo` needs of the demo vendor (see examples/vendor). */
export interface DemoVendor {
  handle(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  close(): Promise<void>;
  ledger(): unknown;
}

/** A running demo: the page's URL, the vendor behind `/api`, and how to stop both. */
export interface Demo {
  url: string;
  vendor: DemoVendor;
  close(): Promise<void>;
}

/** Options of {@link startDemo}. */
export interface DemoOptions {
  /** `0` picks a free port. @default 5173 (or the next free one) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Watch files and reload the page when they change; a test turns it off. @default true */
  watch?: boolean;
}

/** Starts the demo: a Vite dev server for examples/app with the demo vendor mounted on `/api`. */
export function startDemo(options?: DemoOptions): Promise<Demo>;
