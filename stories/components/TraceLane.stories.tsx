import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, within } from 'storybook/test';
import { defaultLabel } from '../../examples/app/components/laneLabels';
import { TraceLane } from '../../examples/app/components/TraceLane';
import type { LaneView } from '../../src/devtools/index';
import type { StitchEvent } from '../../src/index';

const url = 'https://demo.test/api/report?id=q3-revenue';

const base: LaneView = {
  run: 'r1',
  stitch: 'report',
  method: 'GET',
  url,
  status: 'sent',
  start: 0,
  sent: 40,
  end: undefined,
  attempts: [{ attempt: 1, status: undefined, outcome: 'in-flight' }],
  leader: undefined,
  joiners: [],
  retries: 0,
  cancel: undefined,
  error: undefined,
  done: false,
  events: [],
};

/** The `circuit` event a half-open probe's run reports. */
const probe: StitchEvent = {
  type: 'circuit',
  at: 40,
  run: 'r5',
  stitch: 'report',
  key: 'demo-vendor',
  from: 'open',
  to: 'half-open',
};

/** One lane per state a run can end in, on one 1.5 s window, as the trace timeline draws them. */
function Lanes({ lanes }: { lanes: readonly LaneView[] }) {
  return (
    <ol className="lanes" aria-label="Requests, oldest first">
      {lanes.map((lane) => (
        <TraceLane
          key={lane.run}
          lane={lane}
          label={defaultLabel(lane)}
          window={{ from: 0, to: 1_500 }}
          now={1_200}
        />
      ))}
    </ol>
  );
}

const meta = {
  title: 'Components/Trace lane',
  component: Lanes,
  parameters: { layout: 'padded' },
  args: {
    lanes: [
      { ...base, run: 'r1', status: 'queued', sent: undefined, attempts: [] },
      { ...base, run: 'r2' },
      {
        ...base,
        run: 'r3',
        status: 'answered',
        end: 640,
        attempts: [{ attempt: 1, status: 200, outcome: 'answered' }],
      },
      {
        ...base,
        run: 'r4',
        status: 'cancelled',
        end: 1_100,
        attempts: [{ attempt: 1, status: undefined, outcome: 'cancelled' }],
        cancel: { reason: 'superseded', phase: 'in-flight', dispatched: true, socket: 'closed' },
      },
      {
        ...base,
        run: 'r5',
        status: 'failed',
        end: 900,
        attempts: [{ attempt: 1, status: 503, outcome: 'failed' }],
        error: { kind: 'http', name: 'StitchError', message: 'HTTP 503', status: 503 },
        events: [probe],
      },
      {
        ...base,
        run: 'r6',
        method: 'POST',
        url: 'https://demo.test/api/charges',
        status: 'cancelled',
        sent: undefined,
        end: 30,
        attempts: [],
        cancel: { reason: 'left', phase: 'before-dispatch', dispatched: false, socket: 'none' },
      },
      {
        ...base,
        run: 'r7',
        status: 'cancelled',
        end: 700,
        attempts: [{ attempt: 1, status: 503, outcome: 'failed' }],
        cancel: { reason: 'left', phase: 'backoff', dispatched: true, socket: 'none' },
      },
    ],
  },
} satisfies Meta<typeof Lanes>;
export default meta;

type Story = StoryObj<typeof meta>;

/** Every label and caption whole (never cut off), saying what became of the run. */
export const EveryState: Story = {
  play: async ({ canvasElement }) => {
    const lanes = within(canvasElement).getAllByRole('listitem');
    expect(lanes.map((lane) => lane.querySelector('.lane-caption')?.textContent)).toEqual([
      'queued',
      'sent · 1200 ms',
      'answered 200 · 640 ms',
      'cancelled · socket closed · 1100 ms',
      'probe · failed 503 · 900 ms',
      'cancelled before sending',
      // A 503 answered, then cancelled in the wait before the retry: a request did leave.
      'cancelled between attempts · 700 ms',
    ]);
    for (const text of canvasElement.querySelectorAll('.lane-label, .lane-caption')) {
      expect(text.scrollWidth).toBeLessThanOrEqual(text.clientWidth);
    }
  },
};
