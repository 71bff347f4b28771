/**
 * MAX_JSON_BYTES and MAX_UPLOAD_BYTES bind every transport, and are enforced while the body
 * streams in: a chunked body with no Content-Length (so nothing can be checked up front) is cut off
 * just past the limit with a 413 JSON error. tRPC and GraphQL used to read such bodies whole (600 MB
 * held for one tRPC upload). What follows the limit is read and dropped before the 413 is sent (a
 * client still sending when the server closes sees a reset, not the 413), up to the drain bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drain } from '../../src/http/body-limit';
import { exposedGc } from '../../src/jobs/collect-after-jobs';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const MAX_JSON = 8 * 1024;
const MAX_UPLOAD = 256 * 1024;
const CHUNK = 16 * 1024;

let t: TestApp;
let apiKey: string;
let kbId: string;
beforeAll(async () => {
  t = await createTestApp({ env: { MAX_JSON_BYTES: String(MAX_JSON), MAX_UPLOAD_BYTES: String(MAX_UPLOAD) } });
  ({ api_key: apiKey } = await createOrgWithKey(t.deps));
  kbId = (await restClient(t.app, apiKey).post('/api/kbs', { name: 'limits' })).body.kb.id;
});
afterAll(() => t?.close());

/** A body of `total` bytes that starts with `head` and counts how much of it the server pulled. */
function endlessBody(head: string, total: number) {
  const pulled = { bytes: 0 };
  const start = new TextEncoder().encode(head);
  const filler = new Uint8Array(CHUNK).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.bytes >= total) return controller.close();
      const chunk = pulled.bytes === 0 ? start : filler;
      pulled.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled };
}

type Case = { name: string; path: string; contentType: string; head: string; limit: number; keyless?: boolean };
const multipartHead = (field: string) =>
  `--XYZ\r\nContent-Disposition: form-data; name="${field}"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`;

const cases: Case[] = [
  { name: 'REST JSON', path: '/api/kbs', contentType: 'application/json', head: '{"name":"', limit: MAX_JSON },
  { name: 'REST multipart upload', path: '/api/ingest/upload', contentType: 'multipart/form-data; boundary=XYZ', head: multipartHead('file'), limit: MAX_UPLOAD },
  { name: 'GraphQL JSON', path: '/graphql', contentType: 'application/json', head: '{"query":"{ __typename }","x":"', limit: MAX_JSON },
  { name: 'GraphQL JSON without a key', path: '/graphql', contentType: 'application/json', head: '{"query":"', limit: MAX_JSON, keyless: true },
  { name: 'GraphQL multipart', path: '/graphql', contentType: 'multipart/form-data; boundary=XYZ', head: multipartHead('0'), limit: MAX_UPLOAD },
  { name: 'tRPC JSON', path: '/trpc/kbs.create', contentType: 'application/json', head: '{"name":"', limit: MAX_JSON },
  { name: 'tRPC FormData upload', path: '/trpc/documents.upload', contentType: 'multipart/form-data; boundary=XYZ', head: multipartHead('file'), limit: MAX_UPLOAD },
  { name: 'widget session', path: '/api/widget/session', contentType: 'application/json', head: '{"org":"', limit: MAX_JSON, keyless: true },
];

describe('streaming body limits on every transport', () => {
  for (const c of cases) {
    it(`${c.name}: a chunked body past the limit is a 413 JSON error; the rest is read and dropped, so the client finishes sending`, async () => {
      const total = 64 * 1024 * 1024;
      const { stream, pulled } = endlessBody(c.head, total);
      const res = await t.app.fetch(
        new Request(`http://groundwork.test${c.path}`, {
          method: 'POST',
          headers: { 'content-type': c.contentType, ...(c.keyless ? {} : { 'x-api-key': apiKey }) },
          body: stream,
          duplex: 'half',
        } as RequestInit),
      );
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
      expect(pulled.bytes).toBeGreaterThanOrEqual(total);
      // Drained in full: the connection is fit for the client's next request.
      expect(res.headers.get('connection')).toBeNull();
    });

    it(`${c.name}: a declared Content-Length past the limit is refused before reading`, async () => {
      const res = await t.app.fetch(
        new Request(`http://groundwork.test${c.path}`, {
          method: 'POST',
          headers: { 'content-type': c.contentType, 'content-length': String(c.limit + 65 * 1024), ...(c.keyless ? {} : { 'x-api-key': apiKey }) },
          body: c.head,
        }),
      );
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    });
  }

  it('stops draining at its bounds, and the 413 then closes the connection', async () => {
    const { stream, pulled } = endlessBody('x', 64 * 1024 * 1024);
    expect(await drain(stream, { maxBytes: 1024 * 1024, maxMs: 10_000 })).toBe(false);
    expect(pulled.bytes).toBeLessThan(2 * 1024 * 1024);
    const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    expect(await drain(stalled, { maxBytes: 1024 * 1024, maxMs: 50 })).toBe(false);
    expect(await drain(endlessBody('x', 1024 * 1024).stream, { maxBytes: 2 * 1024 * 1024, maxMs: 10_000 })).toBe(true);
  });

  it('keeps nothing it has read: a chunk already drained can be collected while the drain goes on', async () => {
    // A 600 MB body once held 600 MB until its drain ended (every read raced one timeout promise).
    const gc = exposedGc();
    let first: WeakRef<Uint8Array> | undefined;
    let collectedMidway: boolean | undefined;
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        pulls++;
        if (pulls === 50) {
          await new Promise((r) => setTimeout(r, 0));
          gc();
          collectedMidway = first!.deref() === undefined;
        }
        if (pulls > 100) return controller.close();
        const chunk = new Uint8Array(CHUNK);
        first ??= new WeakRef(chunk);
        controller.enqueue(chunk);
      },
    });
    expect(await drain(stream)).toBe(true);
    expect(collectedMidway).toBe(true);
  });

  it('bodies under the limits still work on each transport', async () => {
    const rest = await restClient(t.app, apiKey).post('/api/kbs', { name: 'x'.repeat(100) });
    expect(rest.status).toBe(201);
    const form = new FormData();
    form.set('kb_id', kbId);
    form.set('file', new Blob(['hello world, a small text file']), 'a.txt');
    const trpc = await t.app.fetch(new Request('http://groundwork.test/trpc/documents.upload', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form }));
    expect(trpc.status).toBe(200);
  });
});
