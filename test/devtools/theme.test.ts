import { describe, expect, it } from 'vitest';
import { PALETTE } from '../../src/devtools/theme';

/** WCAG 2 relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

describe('the devtools palette', () => {
  const texts = { text: PALETTE.text, muted: PALETTE.muted, accent: PALETTE.accent, ...PALETTE.status };
  const backgrounds = { background: PALETTE.background, raised: PALETTE.raised };

  it.each(Object.entries(texts))('%s text reads at ≥ 4.5:1 on both backgrounds', (_name, colour) => {
    for (const background of Object.values(backgrounds)) {
      expect(contrast(colour, background)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('the selected tab (background colour on text colour) reads at ≥ 4.5:1', () => {
    expect(contrast(PALETTE.background, PALETTE.text)).toBeGreaterThanOrEqual(4.5);
  });
});
