import { type MouseEvent, useState } from 'react';
import { Routes } from '../../examples/app/Routes';
import { StitchScope } from '../../src/react/index';

/**
 * The app shell's `<StitchScope resetKey={pathname}><Routes pathname={pathname} /></StitchScope>`,
 * with the pathname kept in React state instead of the URL.
 *
 * Story-specific because the app's router (`examples/app/router.tsx`) reads `window.location` and
 * navigates with `history.pushState`: inside Storybook's preview iframe (or vitest's tester iframe)
 * that would rewrite the iframe's own URL. A click on an in-app link (the app's `Link`) is caught
 * here in the capture phase; `preventDefault` there makes `Link` skip its own `navigate`.
 */
export function MemoryRoutes({
  initial,
  links = [],
}: {
  initial: string;
  /** In-app links shown above the page, as the app's navigation bar would be. */
  links?: readonly { href: string; label: string }[];
}) {
  const [pathname, setPathname] = useState(initial);
  const follow = (event: MouseEvent) => {
    const anchor = (event.target as Element).closest('a[href]');
    const href = anchor?.getAttribute('href');
    if (!href?.startsWith('/') || event.button !== 0) return;
    event.preventDefault();
    setPathname(href);
  };
  return (
    <div onClickCapture={follow} data-pathname={pathname} style={{ display: 'contents' }}>
      {links.length > 0 && (
        <nav>
          {links.map(({ href, label }) => (
            <a key={href} href={href}>
              {label}
            </a>
          ))}
        </nav>
      )}
      <StitchScope resetKey={pathname}>
        <Routes pathname={pathname} />
      </StitchScope>
    </div>
  );
}
