import type { ReactNode } from 'react';

/** A page's title and the short paragraph that says what to try and what to look for. */
export function PageIntro({ title, children }: { title: string; children: ReactNode }) {
  return (
    <header className="intro">
      <h1>{title}</h1>
      <p>{children}</p>
    </header>
  );
}
