/**
 * Renders cost: typing a 12-character query into an empty search box (starting idle, with
 * `skipToken`) commits once per keystroke and once for the result, 13 in all after the mount,
 * on a slow vendor where every keystroke supersedes a request in flight.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { useLayoutEffect, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { type Stitch, type StitchInput, stitch } from '../../src/index';
import { skipToken, useStitch } from '../../src/react/index';
import { uniqueKey } from '../helpers/keys';
import { answered, setup } from './harness';

interface Hits {
  q: string;
}
type SearchInput = StitchInput & { query: { q: string } };

const QUERY = 'cancellation';

function SearchBox({
  search,
  commits,
}: {
  search: ReturnType<typeof stitch<Hits, SearchInput>>;
  commits: { count: number };
}) {
  const [q, setQ] = useState('');
  const result = useStitch(search, q === '' ? skipToken : { query: { q } }, { keepPrevious: true });
  useLayoutEffect(() => {
    commits.count += 1;
  });
  return (
    <div>
      <input aria-label="Search" value={q} onChange={(event) => setQ(event.target.value)} />
      <p data-testid="shown">{result.status === 'success' ? result.data.q : result.status}</p>
    </div>
  );
}

describe('commits while typing', () => {
  it.each([
    ['', false],
    [' under StrictMode', true],
  ])('12 keystrokes from an idle box%s: one commit per key and one for the result', async (_, strict) => {
    const { vendor, wrapper, trace } = await setup();
    const search = stitch<Hits, SearchInput>({ name: uniqueKey('search'), url: vendor.url('/search') });
    const commits = { count: 0 };
    render(<SearchBox search={search} commits={commits} />, { wrapper, reactStrictMode: strict });
    expect(commits.count).toBe(strict ? 2 : 1);
    commits.count = 0;
    const input = screen.getByRole('textbox');
    for (let length = 1; length <= QUERY.length; length++) {
      await act(async () => {
        fireEvent.change(input, { target: { value: QUERY.slice(0, length) } });
      });
      // Each keystroke's request is out before the next key, so each one supersedes a live request.
      expect((await vendor.arrival(length)).query.get('q')).toBe(QUERY.slice(0, length));
    }
    await act(async () => {
      const settled = trace.next(answered);
      vendor.release(QUERY.length, { body: { q: QUERY } });
      await settled;
    });
    expect(screen.getByTestId('shown').textContent).toBe(QUERY);
    expect(vendor.requests()).toBe(QUERY.length);
    expect(commits.count).toBe(QUERY.length + 1);
  });
});

/** Records each committed result as `status/isFetching`. */
function FailingReader({ read, committed }: { read: Stitch<Hits, SearchInput>; committed: string[] }) {
  const q = useStitch(read, { query: { q: 'ada' } });
  useLayoutEffect(() => {
    committed.push(`${q.status}/${q.isFetching}`);
  });
  return null;
}

describe('commits of a failure', () => {
  it('a first load that fails goes from fetching to the error in one commit, never through a render neither fetching nor failed', async () => {
    const { vendor, wrapper, answer } = await setup();
    const read = stitch<Hits, SearchInput>({
      name: uniqueKey('search'),
      url: vendor.url('/search'),
      retry: false,
    });
    const committed: string[] = [];
    render(<FailingReader read={read} committed={committed} />, { wrapper });
    await vendor.arrival(1);
    await answer(1, { status: 404, body: { error: 'none' } });
    expect(committed).toEqual(['pending/true', 'error/false']);
  });
});
