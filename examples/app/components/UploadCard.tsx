import { useStitchMutation } from '../../../src/react/index';
import { upload } from '../api';

const SIZE = 256 * 1024;

/** A slow upload (`useStitchMutation`): the enclosing `StitchScope` aborts it on a route change. */
export function UploadCard() {
  const mutation = useStitchMutation(upload);
  const start = () => mutation.mutate({ body: new Blob(['x'.repeat(SIZE)], { type: 'text/plain' }) });
  return (
    <section className="card" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload</h2>
      <button type="button" onClick={start} disabled={mutation.status === 'pending'}>
        {`Upload ${SIZE / 1024} KB`}
      </button>
      <p aria-live="polite" data-testid="upload-status">
        {mutation.status === 'idle' && 'Not started.'}
        {mutation.status === 'pending' && 'Uploading (slow)…'}
        {mutation.status === 'success' && `The vendor received ${mutation.data?.received} bytes.`}
        {mutation.status === 'error' && `${mutation.error?.kind}: ${mutation.error?.message}`}
      </p>
    </section>
  );
}
