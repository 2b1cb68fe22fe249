/**
 * Checks of what a person sees, computed in the page from its layout and computed styles: the page
 * fits the viewport (no sideways scroll, no side column over the content, no clipped text), text
 * meets WCAG AA contrast, and no raw ISO timestamp is shown. Each returns a list of problems, empty
 * when all is well, so a failure names the element.
 */
import type { Page } from 'playwright-core';

type Check = 'layout' | 'contrast';

/**
 * Runs in the page (Playwright sends its source, so it uses nothing from this module).
 *
 * `layout`, at the current viewport: the document does not scroll sideways, `main` has room and no
 * `aside` overlaps it, every navigation link lies inside the viewport, no text is clipped by an
 * `overflow` box (an ellipsis, a cut-off label) or ends past the viewport, and, scrolled to the
 * end, none lies under a fixed element (the devtools button).
 *
 * `contrast`: every visible, enabled text against what is painted behind it (the first opaque
 * background up the tree, translucent ones and the opacity of the element and its ancestors blended
 * in). WCAG AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold). Disabled controls are exempt,
 * as WCAG exempts inactive components.
 */
function auditInPage(check: Check): string[] {
  const describe = (element: Element) => {
    const classes = [...element.classList].map((name) => `.${name}`).join('');
    const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `<${element.tagName.toLowerCase()}${classes}> “${text}”`;
  };
  const withText = [...document.querySelectorAll('body *')].filter((element) =>
    [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim()),
  );
  const problems: string[] = [];

  if (check === 'layout') {
    const root = document.documentElement;
    const width = root.clientWidth;
    if (root.scrollWidth > width)
      problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${width} px`);
    const main = document.querySelector('main')?.getBoundingClientRect();
    if (!main || main.width < Math.min(width, 700) - 48) problems.push(`main is ${main?.width ?? 0} px wide`);
    for (const aside of document.querySelectorAll('aside')) {
      const box = aside.getBoundingClientRect();
      if (main && box.left < main.right && box.top < main.bottom)
        problems.push(`${describe(aside)} overlaps main`);
    }
    for (const link of document.querySelectorAll('nav a')) {
      const box = link.getBoundingClientRect();
      if (box.left < 0 || box.right > width || box.width === 0) problems.push(`${describe(link)} is cut off`);
    }
    for (const element of withText) {
      const clips = getComputedStyle(element).overflowX !== 'visible';
      if (clips && element.scrollWidth > element.clientWidth + 1) {
        problems.push(`${describe(element)} is clipped: ${element.scrollWidth} > ${element.clientWidth} px`);
      }
      if (element.getBoundingClientRect().right > width + 0.5)
        problems.push(`${describe(element)} ends past the viewport`);
    }
    // Scrolled to the end, nothing fixed (the devtools button) lies over text.
    const { scrollY } = window;
    window.scrollTo(0, root.scrollHeight);
    for (const cover of document.querySelectorAll('body *')) {
      if (getComputedStyle(cover).position !== 'fixed') continue;
      const over = cover.getBoundingClientRect();
      for (const element of withText) {
        const box = element.getBoundingClientRect();
        const overlaps =
          box.left < over.right && box.right > over.left && box.top < over.bottom && box.bottom > over.top;
        if (overlaps && !cover.contains(element))
          problems.push(`${describe(element)} lies under ${describe(cover)}`);
      }
    }
    window.scrollTo(0, scrollY);
    return problems;
  }

  type Rgba = [number, number, number, number];
  const parse = (color: string): Rgba => {
    const [r = 0, g = 0, b = 0, a = 1] = color.match(/[\d.]+/g)?.map(Number) ?? [];
    return [r, g, b, a];
  };
  const over = (top: Rgba, bottom: Rgba): Rgba => {
    const mix = (i: 0 | 1 | 2) => top[i] * top[3] + bottom[i] * (1 - top[3]);
    return [mix(0), mix(1), mix(2), 1];
  };
  const luminance = ([r, g, b]: Rgba) => {
    const channel = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  for (const element of withText) {
    if (element.closest(':disabled, [aria-disabled="true"]')) continue;
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    if (style.visibility !== 'visible' || box.width === 0 || box.height === 0) continue;
    const layers: Rgba[] = [];
    let opacity = 1;
    for (let at: Element | null = element; at; at = at.parentElement) {
      const own = getComputedStyle(at);
      opacity *= Number(own.opacity);
      const layer = parse(own.backgroundColor);
      if (layers.at(-1)?.[3] !== 1 && layer[3] > 0) layers.push(layer);
    }
    const background = layers.reduceRight<Rgba>((below, layer) => over(layer, below), [255, 255, 255, 1]);
    const color = parse(style.color);
    const text = over([color[0], color[1], color[2], color[3] * opacity], background);
    const [light, dark] = [luminance(text), luminance(background)].sort((a, b) => b - a) as [number, number];
    const ratio = (light + 0.05) / (dark + 0.05);
    const size = Number.parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) problems.push(`${describe(element)}: ${ratio.toFixed(2)}:1`);
  }
  return problems;
}

/** The layout problems of the page at its current viewport (see {@link auditInPage}). */
export const layoutProblems = (page: Page) => page.evaluate(auditInPage, 'layout' as Check);

/** The texts of the page below WCAG AA contrast (see {@link auditInPage}). */
export const contrastProblems = (page: Page) => page.evaluate(auditInPage, 'contrast' as Check);

/** Text that looks like a raw ISO 8601 timestamp (`2026-05-04T10:11:12…`), which people should never have to read. */
export async function isoTimestamps(page: Page): Promise<string[]> {
  const text = (await page.locator('body').textContent()) ?? '';
  return text.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}[^\s]*/g) ?? [];
}

/**
 * Starts recording what the page's live regions (`aria-live`, `role=status|alert|log`, `<output>`)
 * would announce: each change of a region's text. Read it back with {@link announcements}.
 */
export function recordAnnouncements(page: Page): Promise<void> {
  return page.evaluate(() => {
    const log: string[] = [];
    const last = new Map<Element, string>();
    const live = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output';
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        const target = mutation.target instanceof Element ? mutation.target : mutation.target.parentElement;
        const region = target?.closest(live);
        if (!region) continue;
        const text = (region.textContent ?? '').trim();
        if (last.get(region) === text) continue;
        last.set(region, text);
        log.push(text);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
    (window as unknown as { announcements: string[] }).announcements = log;
  });
}

/** What the live regions announced since {@link recordAnnouncements}, in order. */
export function announcements(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { announcements: string[] }).announcements);
}
