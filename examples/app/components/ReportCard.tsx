import { useId } from 'react';
import { useStitch } from '../../../src/react/index';
import { report } from '../api';
import { timeOfDay } from './when';

/** A slow report read with `useStitch`; leaving the page releases it and the socket closes. */
export function ReportCard() {
  const result = useStitch(report, { query: { id: 'q3-revenue' } });
  const title = useId();
  return (
    <section className="card" aria-labelledby={title}>
      <h2 id={title}>Quarterly report</h2>
      <p aria-live="polite" data-testid="report-status">
        {result.status === 'pending' && 'Generating the report (slow)…'}
        {result.status === 'success' && result.data && (
          <>
            Generated at{' '}
            <time dateTime={result.data.generatedAt}>{timeOfDay(Date.parse(result.data.generatedAt))}</time>
            {` · ${result.data.rows.length} months`}
          </>
        )}
        {result.status === 'error' && `${result.error?.kind}: ${result.error?.message}`}
      </p>
    </section>
  );
}
