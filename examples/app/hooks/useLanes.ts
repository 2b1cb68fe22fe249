import { type LaneView, useStitchInspector } from '../../../src/devtools/index';

/**
 * The lanes of these stitches' runs, oldest first, from the devtools model the Stitch panel shows
 * (pushed by `engine.inspect`); re-renders only when one of them changes.
 */
export function useLanes(stitches: readonly string[]): readonly LaneView[] {
  return useStitchInspector((snapshot) => snapshot.lanes.filter((lane) => stitches.includes(lane.stitch)));
}
