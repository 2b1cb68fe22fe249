import { useEffect, useState } from 'react';
import { useStitch, useStitchMutation } from '../../../src/react/index';
import { DEFAULT_CONTROLS } from '../../vendor/controls';
import { type Controls, getControls, resetLedger, setControls } from '../api';

/** The vendor's latency and fault controls: what it runs with now, and setters that post them. */
export function useVendorControls() {
  const current = useStitch(getControls, {});
  const write = useStitchMutation(setControls);
  const wipe = useStitchMutation(resetLedger);
  const [draft, setDraft] = useState<Controls | undefined>(undefined);

  // The server's values fill the form once; after that the form is the source of truth.
  useEffect(() => {
    if (current.data) setDraft((previous) => previous ?? current.data);
  }, [current.data]);

  const set = (patch: Partial<Controls>) => {
    setDraft((previous) => (previous ? { ...previous, ...patch } : previous));
    // A newer write supersedes (aborts) one still in flight: the last value wins.
    write.mutate({ body: patch });
  };

  /** Back to the vendor's defaults, with an empty ledger. */
  const reset = async () => {
    try {
      await write.mutateAsync({ body: DEFAULT_CONTROLS });
      await wipe.mutateAsync();
    } catch {
      return; // The failure shows in `error`.
    }
    setDraft(undefined);
    current.refetch();
  };

  return { controls: draft, set, reset, error: write.error ?? wipe.error ?? current.error };
}
