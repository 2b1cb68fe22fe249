/**
 * The panel's colours and shared styles. Every text colour is readable on both backgrounds
 * (contrast ≥ 4.5:1, WCAG AA; test/devtools/theme.test.ts checks each pair).
 */
import type { CSSProperties } from 'react';

/** Background and text colours; `status` colours are used for text on either background. */
export const PALETTE = {
  background: '#111827',
  raised: '#1f2937',
  text: '#f9fafb',
  muted: '#d1d5db',
  accent: '#93c5fd',
  status: {
    started: '#d1d5db',
    queued: '#fcd34d',
    sent: '#93c5fd',
    coalesced: '#c4b5fd',
    cached: '#5eead4',
    recorded: '#5eead4',
    answered: '#86efac',
    failed: '#fca5a5',
    cancelled: '#fdba74',
  },
} as const;

/** A focus ring that shows on every background. */
export const focusable: CSSProperties = { outlineOffset: 2 };

export const button: CSSProperties = {
  background: PALETTE.raised,
  color: PALETTE.text,
  border: `1px solid ${PALETTE.muted}`,
  borderRadius: 4,
  padding: '2px 8px',
  font: 'inherit',
  cursor: 'pointer',
  ...focusable,
};

export const cell: CSSProperties = {
  padding: '4px 6px',
  borderBottom: `1px solid ${PALETTE.raised}`,
  textAlign: 'left',
  verticalAlign: 'top',
};

export const mono: CSSProperties = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' };

/** Milliseconds as people read them. */
export const duration = (ms: number) =>
  Math.abs(ms) < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
