/** The `redirect` option of a stitch (following redirects is `redirect.ts`, in the send stage). */
import { configError } from './errors';

/** What a stitch does with a 3xx: follow it (secrets never cross origins), fail, or return it. */
export type RedirectMode = 'follow' | 'error' | 'manual';

const MODES: readonly RedirectMode[] = ['follow', 'error', 'manual'];

/** Validates the `redirect` option. @default 'follow' */
export function normalizeRedirect(value: unknown, stitchName: string): RedirectMode {
  if (value === undefined) return 'follow';
  if (!MODES.includes(value as RedirectMode)) {
    throw configError(stitchName, 'redirect', `must be one of ${MODES.map((m) => `'${m}'`).join(', ')}`);
  }
  return value as RedirectMode;
}
