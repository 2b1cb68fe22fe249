/**
 * What the React suites share: one run of one library (a fresh search vendor, library instance and
 * React root, all torn down after), and the rounds that run every library, with and without
 * StrictMode, in a rotating order, summarised per library.
 */
import { type ReactNode, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { Vendor } from '../../test/helpers/vendor';
import { log } from './child';
import { type Instance, LIBRARIES, type Library } from './libraries';
import { searchVendor } from './searchVendor';
import { RUNS, type Sample, summarize } from './stats';

/** What a run's body gets: the vendor, the library instance, and a root to render into. */
export interface Session {
  vendor: Vendor;
  instance: Instance;
  container: HTMLElement;
  /** Renders `children` inside the instance's Provider (and StrictMode, for a strict run). */
  render(children: ReactNode): void;
}

/**
 * Starts a vendor answering after `latency` ms and a fresh `library` instance, mounts an empty
 * root, runs `body`, then unmounts, disposes of the instance and closes the vendor.
 */
export async function session<TResult>(
  library: Library,
  latency: number,
  strict: boolean,
  body: (session: Session) => Promise<TResult>,
): Promise<TResult> {
  const vendor = await searchVendor(latency);
  const instance = library.create(vendor.origin);
  const container = document.createElement('div');
  document.body.appendChild(container);
  const root = createRoot(container);
  const { Provider } = instance;
  const render = (children: ReactNode) => {
    const tree = <Provider>{children}</Provider>;
    root.render(strict ? <StrictMode>{tree}</StrictMode> : tree);
  };
  const result = await body({ vendor, instance, container, render });
  root.unmount();
  container.remove();
  instance.dispose();
  await vendor.close();
  return result;
}

const idOf = (library: Library, strict: boolean) => `${library.name}${strict ? ':strict' : ''}`;

/**
 * One warm-up run per library and mode (the first React render in a process, and the first under
 * StrictMode, pay for JIT and module initialisation), then `runs` rounds of every library with and
 * without StrictMode, and one row per library and mode with each figure's median and every run's
 * value (in round order, so that the libraries' runs of one round can be paired).
 */
export async function compareLibraries<TKey extends string>(
  suite: string,
  runOnce: (library: Library, strict: boolean) => Promise<Record<TKey, number>>,
  runs = RUNS,
) {
  const records = new Map<string, Array<Record<TKey, number>>>();
  for (const strict of [false, true]) for (const library of LIBRARIES) await runOnce(library, strict);
  for (let run = 0; run < runs; run++) {
    for (const strict of [false, true]) {
      // Rotate the order so no library always runs first (or right after a given other one).
      for (let i = 0; i < LIBRARIES.length; i++) {
        const library = LIBRARIES[(i + run) % LIBRARIES.length] as Library;
        const record = await runOnce(library, strict);
        records.set(idOf(library, strict), [...(records.get(idOf(library, strict)) ?? []), record]);
      }
    }
    log(`${suite}: run ${run + 1}/${runs}`);
  }
  return LIBRARIES.flatMap((library) =>
    [false, true].map(
      (strict): { library: Library['name']; label: string; strict: boolean } & Record<TKey, Sample> => ({
        library: library.name,
        label: library.label,
        strict,
        ...summarize(records.get(idOf(library, strict)) ?? []),
      }),
    ),
  );
}
