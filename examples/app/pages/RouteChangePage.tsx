import { report, upload } from '../api';
import { HangUps } from '../components/HangUps';
import { PageIntro } from '../components/PageIntro';
import { ReportCard } from '../components/ReportCard';
import { TraceTimeline } from '../components/TraceTimeline';
import { UploadCard } from '../components/UploadCard';
import { Link } from '../router';

/** The page to leave (`/route-change`) and where leaving lands (`/route-change/left`). */
export function RouteChangePage({ left }: { left: boolean }) {
  return (
    <>
      <PageIntro title="Route change">
        This page reads a slow report with <code>useStitch</code> and can start a slow upload with{' '}
        <code>useStitchMutation</code>, all inside <code>{'<StitchScope resetKey={pathname}>'}</code>. Start
        the upload, then leave while both are in flight: the scope aborts them, the browser closes their
        sockets, and the vendor's ledger counts the hang-ups. Nothing is left running for a page nobody sees.
      </PageIntro>
      {left ? (
        <>
          <HangUps />
          <p>
            <Link href="/route-change">Go back (starts a new report)</Link>
          </p>
        </>
      ) : (
        <>
          <div className="pair">
            <ReportCard />
            <UploadCard />
          </div>
          <p>
            <Link href="/route-change/left" className="button">
              Leave this page
            </Link>
          </p>
        </>
      )}
      <TraceTimeline stitches={[report.definition.name, upload.definition.name]} />
    </>
  );
}
