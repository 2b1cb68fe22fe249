import { setupServer } from 'msw/node';

/**
 * The msw server of the `dom` project, for unit-level HTTP mocks. Tests add handlers with
 * `server.use(...)`; any request without a handler fails the test.
 */
export const server = setupServer();
