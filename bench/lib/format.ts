/** Number formats and the Markdown table the report is written with. */

export const LABELS: Record<string, string> = {
  stitch: 'Stitch',
  tanstack: 'TanStack Query',
  swr: 'SWR',
  cockatiel: 'cockatiel',
};

export const kB = (bytes: number) => `${(bytes / 1000).toFixed(2)} kB`;
export const int = (value: number) =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
export const fixed = (value: number, digits: number) =>
  Number.isFinite(value) ? value.toFixed(digits) : '–';
export const µs = (ns: number) => `${fixed(ns / 1000, 1)} µs`;
export const percent = (ratio: number) => `${fixed(ratio * 100, 1)} %`;

/** A Markdown table, padded so it also reads as a table in a terminal. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(3, cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
