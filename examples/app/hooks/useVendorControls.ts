import { useState } from 'react';
import { useStitch, useStitchMutation } from '../../../src/react/index';
import { DEFAULT_CONTROLS } from '../../vendor/controls';
import { type Controls, getControls, resetLedger, setControls } from '../api';

/** The vendor's latency and fault controls: what it runs with now, and setters that post them. */
export function useVendorControls() {
  const current = useStitch(getControls, {});
  const write = useStitchMutation(setControls);
  const wipe = useStitchMutation(resetLedger);
  // The server's values fill the form; once the form has set one, the form is the source of truth.
  const [edited, setEdited] = useState<Controls | undefined>(undefined);

  const set = (patch: Partial<Controls>) => {
    setEdited((previous) => {
      const base = previous ?? current.data;
      return base && { ...base, ...patch };
    });
    // A newer write supersedes (aborts) one still in flight: the last value wins.
    write.mutate({ body: patch });
  };

  /** Back to the vendor's defaults, with an empty ledger. */
  const reset = async () => {
    let applied: Controls;
    try {
      applied = await write.mutateAsync({ body: DEFAULT_CONTROLS });
      await wipe.mutateAsync();
    } catch {
      return; // The failure shows in `error`.
    }
    // The vendor answers a write with every control it now runs with.
    setEdited(applied);
  };

  return {
    controls: edited ?? current.data,
    set,
    reset,
    error: write.error ?? wipe.error ?? current.error,
  };
}
