/** An error boundary for the Suspense tests: it shows the error it caught, by kind. */
import { Component, type ReactNode } from 'react';
import { isStitchError } from '../../src/index';

/** Every error a {@link Boundary} caught, in order; a test empties it before it starts. */
export const caught: unknown[] = [];

/**
 * Shows the error it caught as `failed: <kind>`, a button that clears it (React renders the
 * children again). `slow`: its error page takes that long (ms) to render (a big page, a slow device).
 */
export class Boundary extends Component<{ children: ReactNode; slow?: number }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    caught.push(error);
    const started = performance.now();
    while (performance.now() - started < (this.props.slow ?? 0));
    return (
      <button type="button" onClick={() => this.setState({ error: null })}>
        {isStitchError(error) ? `failed: ${error.kind}` : 'failed'}
      </button>
    );
  }
}
