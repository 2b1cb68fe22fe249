/**
 * msw for the stories, intercepting `fetch` in the page itself rather than through a service
 * worker: a handler then receives the app's own `Request`, whose `signal` aborts when the app
 * aborts (a service worker sees a copy that never does), and there is no worker script to serve.
 */
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { defineNetwork, InterceptorSource } from 'msw/experimental';

type Sources = ConstructorParameters<typeof InterceptorSource>[0];

/** Starts intercepting `fetch`; a request no handler takes goes to the network as usual. */
export async function interceptFetch() {
  // msw's source is typed for interceptors of HTTP and WebSocket events at once; this one has HTTP only.
  const interceptors = [new FetchInterceptor()] as unknown as Sources['interceptors'];
  const network = defineNetwork({
    sources: [new InterceptorSource({ interceptors })],
    onUnhandledFrame: 'bypass',
    context: { quiet: true },
  });
  await network.enable();
  return network;
}
