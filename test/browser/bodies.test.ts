/**
 * Bodies made in another realm (a same-origin iframe: an embedded editor's file input, say) are
 * sent as the body types they are, as fetch takes them, not refused as JSON. In Chromium, against
 * a vendor on 127.0.0.1 (test/browser/vendor.setup.ts) that answers with what it got.
 */
import { expect, inject, it } from 'vitest';
import { createEngine, stitch } from '../../src/index';

const vendor = inject('vendor');

it('a File, a Blob, a FormData and URLSearchParams from an iframe are uploaded as they are', async () => {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const other = frame.contentWindow as Window & typeof globalThis;
  const engine = createEngine();
  const upload = stitch({ name: 'upload', method: 'POST', url: `${vendor}/d/upload` });
  const form = new other.FormData();
  form.append('note', 'hi');
  const bodies = [
    new other.File(['hi'], 'hi.txt', { type: 'text/plain' }),
    new other.Blob(['hi']),
    form,
    new other.URLSearchParams('note=hi'),
  ];
  expect(bodies[0] instanceof File).toBe(false);
  const got = await Promise.all(bodies.map((body) => upload({ body }, { engine })));
  expect(got).toEqual([
    expect.objectContaining({ body: 'hi', type: 'text/plain' }),
    expect.objectContaining({ body: 'hi' }),
    expect.objectContaining({
      body: expect.stringContaining('name="note"\r\n\r\nhi'),
      type: expect.stringMatching(/^multipart\/form-data/),
    }),
    expect.objectContaining({
      body: 'note=hi',
      type: expect.stringMatching(/^application\/x-www-form-urlencoded/),
    }),
  ]);
  frame.remove();
});
