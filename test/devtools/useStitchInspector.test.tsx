/**
 * `useStitchInspector` / `useDevtoolsModel`: a page's view of the devtools model is the panel's own
 * (one model, one `engine.inspect` listener per engine), connected only while something watches,
 * re-rendering only when its selection changes; its lanes say what the vendor's ledger says.
 */
import { act, render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  type DevtoolsSnapshot,
  type LaneView,
  type SharedDevtoolsModel,
  StitchDevtools,
  useDevtoolsModel,
  useStitchInspector,
} from '../../src/devtools/index';
import { type Engine, stitch } from '../../src/index';
import { uniqueKey } from '../helpers/keys';
import { rejection } from '../helpers/runs';
import { actAtOnce, flushMicrotasks, type Recorder, recorder, renderStrict, setup } from '../react/harness';
import { Reader, userStitch } from '../react/users';

/** Counts the engine's inspect listeners as they come and go. */
function watchInspectors(engine: Engine) {
  const counts = { subscribed: 0, active: 0 };
  const inspect = engine.inspect.bind(engine);
  engine.inspect = (listener) => {
    counts.subscribed++;
    counts.active++;
    const stop = inspect(listener);
    return () => {
      counts.active--;
      stop();
    };
  };
  return counts;
}

const lanesOf = (name: string) => (snapshot: DevtoolsSnapshot) =>
  snapshot.lanes.filter((lane) => lane.stitch === name);

/** A page showing `stitch`'s lanes: records each render's lanes, and hands out the model it used. */
function Page({
  stitch: name,
  shown,
  model,
  maxLanes,
}: {
  stitch: string;
  shown: Recorder<readonly LaneView[]>;
  model: (model: SharedDevtoolsModel) => void;
  maxLanes?: number;
}) {
  model(useDevtoolsModel());
  shown.record(useStitchInspector(lanesOf(name), maxLanes === undefined ? {} : { maxLanes }));
  return null;
}

it("a page's lanes are the panel's: one model, a lane per run with the vendor's hang-ups, re-rendered only when they change", async () => {
  const { vendor, engine, wrapper } = await setup();
  const inspectors = watchInspectors(engine);
  const search = stitch({ name: uniqueKey('search'), url: vendor.url('/search'), circuit: false });
  const other = stitch({ name: uniqueKey('other'), url: vendor.url('/other') });
  const shown = recorder<readonly LaneView[]>();
  const models: unknown[] = [];
  const view = renderStrict(
    <>
      <Page stitch={search.definition.name} shown={shown} model={(model) => models.push(model)} />
      <StitchDevtools />
    </>,
    wrapper,
  );
  // StrictMode's second effect run, the page and the panel: one model, one listener.
  expect(new Set(models).size).toBe(1);
  expect(inspectors).toEqual({ subscribed: 1, active: 1 });

  // Every update the runs push lands inside act.
  await act(async () => {
    const first = new AbortController();
    const a = search({ query: { q: 'a' } }, { engine, signal: first.signal });
    await vendor.arrival(1);
    first.abort(new Error('superseded'));
    await vendor.hangUp(1);
    await rejection(a);
    const ada = search({ query: { q: 'ada' } }, { engine });
    await vendor.arrival(2);
    vendor.release(2);
    await ada;
    await flushMicrotasks();
  });
  const lanes = shown.last;
  expect(lanes.map(({ status, cancel, attempts }) => ({ status, socket: cancel?.socket, attempts }))).toEqual(
    [
      {
        status: 'cancelled',
        socket: 'closed',
        attempts: [{ attempt: 1, status: undefined, outcome: 'cancelled' }],
      },
      { status: 'answered', socket: undefined, attempts: [{ attempt: 1, status: 200, outcome: 'answered' }] },
    ],
  );
  expect(vendor.ledger.map((entry) => [entry.hungUp, entry.answered])).toEqual([
    [true, false],
    [false, true],
  ]);
  // Times on the engine's clock: started, sent, ended, in that order.
  for (const lane of lanes) {
    expect(lane.start).toBeLessThanOrEqual(lane.sent as number);
    expect(lane.sent).toBeLessThanOrEqual(lane.end as number);
  }

  // Another stitch's run changes the model, not this selection: no render.
  const renders = shown.renders.length;
  await act(async () => {
    const elsewhere = other(undefined, { engine });
    await vendor.arrival(3);
    vendor.release(3);
    await elsewhere;
    await flushMicrotasks();
  });
  expect(shown.renders.length).toBe(renders);

  view.unmount();
  await flushMicrotasks();
  expect(inspectors.active).toBe(0); // nobody watches: the engine builds no inspection events
});

it('clearLanes of the shared model clears what every view of it shows', async () => {
  const { vendor, engine, wrapper } = await setup({ respond: () => ({ status: 200, body: {} }) });
  const read = stitch({ name: uniqueKey('read'), url: vendor.url('/read') });
  const shown = recorder<readonly LaneView[]>();
  let clear = () => {};
  const keep = (model: SharedDevtoolsModel) => {
    clear = model.clearLanes;
  };
  render(<Page stitch={read.definition.name} shown={shown} model={keep} />, { wrapper });
  await act(async () => {
    await read(undefined, { engine });
    await flushMicrotasks();
  });
  expect(shown.last).toHaveLength(1);
  await actAtOnce(() => clear());
  expect(shown.last).toEqual([]);
});

describe('watched from the commit that mounts it', () => {
  // A reader placed before the panel (the README's layout) sends from its effect in the same
  // commit that mounts the panel: its request is watched from its start all the same.
  it.each([
    ['<StitchDevtools />', () => <StitchDevtools />],
    ['useStitchInspector', () => <Page stitch="any" shown={recorder()} model={() => {}} />],
  ])('%s placed after a reader has the lane of its first request', async (_, Watcher) => {
    const { vendor, wrapper, answer } = await setup();
    const getUser = userStitch(vendor);
    let model: SharedDevtoolsModel | undefined;
    const Model = () => {
      model = useDevtoolsModel();
      return null;
    };
    render(
      <>
        <Reader getUser={getUser} />
        <Watcher />
        <Model />
      </>,
      { wrapper },
    );
    await vendor.arrival(1);
    await answer(1, { body: { id: 7, name: 'Ada' } });
    expect(model?.getSnapshot().lanes.map(({ stitch, status }) => ({ stitch, status }))).toEqual([
      { stitch: getUser.definition.name, status: 'answered' },
    ]);
  });
});

it('refuses a bad maxLanes with a config error naming it', async () => {
  const { wrapper } = await setup();
  const page = <Page stitch="any" shown={recorder()} model={() => {}} maxLanes={0} />;
  const quiet = console.error;
  console.error = () => {}; // React reports the render error too
  try {
    expect(() => render(page, { wrapper })).toThrowError(
      expect.objectContaining({ kind: 'config', field: 'maxLanes' }),
    );
  } finally {
    console.error = quiet;
  }
});
