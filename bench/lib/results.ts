/** The shape of bench/results/latest.json: what bench/main writes and the report reads. */
import type { Sample } from './stats';

export const SUITES = ['search', 'fanin', 'overhead', 'bundle'] as const;
export type SuiteName = (typeof SUITES)[number];

export type Library = 'stitch' | 'tanstack' | 'swr';

export interface SearchRow {
  library: Library;
  label: string;
  strict: boolean;
  fetchCalls: Sample;
  started: Sample;
  completed: Sample;
  hungUp: Sample;
  bytesSent: Sample;
  renders: Sample;
  renderCalls: Sample;
  lastKeyToResultsMs: Sample;
  lastKeyToLastRenderMs: Sample;
}

export interface SearchSuite {
  query: string;
  keyIntervalMs: number;
  latencyMs: number;
  runs: number;
  rows: SearchRow[];
}

export interface FaninRow {
  library: Library;
  label: string;
  strict: boolean;
  fetchCalls: Sample;
  requests: Sample;
  completed: Sample;
  hungUp: Sample;
  allResolvedMs: Sample;
  renders: Sample;
  renderCalls: Sample;
}

export interface FaninSuite {
  components: number;
  latencyMs: number;
  runs: number;
  rows: FaninRow[];
}

export interface Load {
  p50: number;
  p99: number;
  throughput: number;
  cpuPerCallUs: number;
}

export interface OverheadSuite {
  policies: Record<string, unknown>;
  network: {
    origin: string;
    slices: number;
    rows: Array<{
      concurrency: number;
      calls: number;
      fetch: Load;
      /** Bare fetch given an AbortSignal: what any library that can cancel a request must pass. */
      signal: Load;
      stitch: Load;
      /** Stitch over bare fetch, the median of the per-run ratios. */
      ratio: Load;
      /** Fetch with a signal over bare fetch, likewise. */
      signalRatio: Load;
      runs: Record<'fetch' | 'signal' | 'stitch', Record<keyof Load, number[]>>;
    }>;
  };
  inProcess: {
    rows: Array<{
      name: string;
      label: string;
      wallNs: number;
      cpuNs: number;
      cpuOverFetchStubNs: number;
      runs: { wallNs: number[]; cpuNs: number[] };
    }>;
    /**
     * The full pipeline on an engine with 11,000 subscribed keys, and on one with a full cache of
     * 10,000 entries, against the same pipeline on a default engine, in alternating slices: CPU ns
     * per call of each, per slice.
     */
    crowding: { plainNs: number[]; subscribedNs: number[]; largeNs: number[] };
    /**
     * Bare fetch, cockatiel, TanStack Query, the full pipeline, Stitch with no policies, a cache
     * hit and coalesced joiners (per caller) taking turns in slices of `callsPerSlice` calls: CPU
     * ns per call of each arm, per slice.
     */
    paired: { callsPerSlice: number; cpuNs: Record<string, number[]> };
    allocations: {
      abortControllersPerCall: number;
      timersPerCall: number;
      eventsPerCall: number;
      nsPerAbortController: number;
    };
  };
}

export interface BundleSuite {
  settings: string;
  sizeLimit: Array<{ name: string; passed: boolean; size: number; sizeLimit: number; limit?: string }>;
  rows: Array<{
    id: string;
    label: string;
    sizes: Partial<Record<Library | 'cockatiel', { imports: string; minified: number; gzip: number }>>;
  }>;
  breakdown: { total: number; modules: Array<{ module: string; minified: number }> };
}

export interface BenchResults {
  date: string;
  command: string;
  wallTimeSeconds: number;
  runsPerMeasurement: number;
  machine: {
    os: string;
    arch: string;
    cpus: number;
    cpuModel: string;
    cpuSpeedMHz: number;
    osCpus: Array<{ model: string; speed: number }>;
    memoryGB: number;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  versions: Record<string, string>;
  suites: { search?: SearchSuite; fanin?: FaninSuite; overhead?: OverheadSuite; bundle?: BundleSuite };
}
