import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { follow, messageOf } from '../../src/react/signals';

describe('follow', () => {
  it('aborts with the reason of the source that aborts first', () => {
    const route = new AbortController();
    const scope = new AbortController();
    const link = follow(route.signal, undefined, scope.signal);
    const reason = new Error('user navigated away');
    scope.abort(reason);
    route.abort(new Error('later'));
    expect(link.signal.reason).toBe(reason);
  });

  it('starts aborted when a source already is, and dispose() leaves no listener on a long-lived one', () => {
    const gone = new AbortController();
    gone.abort('gone');
    expect(follow(gone.signal).signal.reason).toBe('gone');
    const app = new AbortController();
    const links = Array.from({ length: 3 }, () => follow(app.signal));
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(3);
    for (const link of links) link.dispose();
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
  });
});

describe('messageOf', () => {
  it('reads an error, a string, or says the operation was aborted', () => {
    expect(messageOf(new DOMException('The component unmounted', 'AbortError'))).toBe(
      'The component unmounted',
    );
    expect(messageOf('typed again')).toBe('typed again');
    expect(messageOf(42)).toBe('The operation was aborted');
  });
});
