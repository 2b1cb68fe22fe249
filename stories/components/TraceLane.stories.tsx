import type { Meta, StoryObj } from '@storybook/react-vite';
import { expect, within } from 'storybook/test';
import { TraceLane } from '../../examples/app/components/TraceLane';
import type { Lane } from '../../examples/app/trace/store';

const base: Lane = {
  run: 'r1',
  stitch: 'report',
  method: 'GET',
  path: '/api/report?id=q3-revenue',
  start: 0,
  sent: 40,
  end: undefined,
  state: 'sent',
  detail: '',
  dispatched: false,
  joined: false,
  probe: false,
  idempotencyKey: undefined,
};

/** One lane per state a run can end in, on one 1.5 s window, as the trace timeline draws them. */
function Lanes({ lanes }: { lanes: readonly Lane[] }) {
  return (
    <ol className="lanes" aria-label="Requests, oldest first">
      {lanes.map((lane) => (
        <TraceLane
          key={lane.run}
          lane={lane}
          label={`${lane.method} ${lane.path.replace(/^\/api\//, '')}`}
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
      { ...base, run: 'r1', state: 'queued', sent: undefined },
      { ...base, run: 'r2' },
      { ...base, run: 'r3', state: 'answered', end: 640, detail: '200' },
      { ...base, run: 'r4', state: 'cancelled', end: 1_100, dispatched: true, detail: 'superseded' },
      { ...base, run: 'r5', state: 'failed', end: 900, detail: '503', probe: true },
      {
        ...base,
        run: 'r6',
        method: 'POST',
        path: '/api/charges',
        state: 'cancelled',
        sent: undefined,
        end: 30,
        detail: 'left',
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
    ]);
    for (const text of canvasElement.querySelectorAll('.lane-label, .lane-caption')) {
      expect(text.scrollWidth).toBeLessThanOrEqual(text.clientWidth);
    }
  },
};
