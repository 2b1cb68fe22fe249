/**
 * Serves the demo: a Vite dev server for `examples/app` with the demo vendor (`examples/vendor`)
 * mounted on `/api` of the same origin, so one URL serves the page and the API it calls. The app
 * imports Stitch from `src/` and the vendor is TypeScript loaded through Vite, so nothing needs
 * building first. Used by `npm start` (examples/start.mjs) and by the browser test (test/e2e).
 */
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** Whether a request is for the vendor: `/api`, `/api/...` or `/api?...`. */
const isApi = (url = '') => /^\/api(?:[/?]|$)/.test(url);

/**
 * A Vite plugin that hands `/api` requests to the vendor before Vite's own middlewares (static
 * files, SPA fallback) see them. `vendor()` is read per request: it is set once the server is up.
 */
function mountVendor(vendor) {
  return {
    name: 'stitch-demo-vendor',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const current = vendor();
        if (!current || !isApi(req.url)) return next();
        current.handle(req, res, next);
      });
    },
  };
}

/**
 * Starts the demo on `host:port` (`port: 0` picks a free one). With `watch: false` nothing is
 * watched and no page is ever reloaded: a test's page keeps its state while files change.
 * @returns the page's URL, the vendor instance, and `close()`, which stops both.
 */
export async function startDemo({ port = 5173, host = '127.0.0.1', watch = true } = {}) {
  let vendor;
  const server = await createServer({
    configFile: false,
    root: here('./app/'),
    cacheDir: here('../node_modules/.vite/stitch-demo'),
    logLevel: 'warn',
    clearScreen: false,
    plugins: [mountVendor(() => vendor)],
    server: watch ? { host, port } : { host, port, hmr: false, watch: null },
    // Pre-bundled up front, so the first page load never triggers a dependency re-optimisation
    // (and the reload that comes with it).
    optimizeDeps: {
      include: ['react', 'react/jsx-dev-runtime', 'react-dom', 'react-dom/client'],
    },
  });
  try {
    const { createDemoVendor } = await server.ssrLoadModule(here('./vendor/index.ts'));
    vendor = createDemoVendor();
    await server.listen();
  } catch (error) {
    await server.close();
    throw error;
  }
  const { port: actual } = server.httpServer.address();
  return {
    url: `http://${host}:${actual}/`,
    vendor,
    async close() {
      // Vite destroys its open sockets (hung requests included); the vendor then stops its timers.
      await server.close();
      await vendor.close();
    },
  };
}
