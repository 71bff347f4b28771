/**
 * A multipart body cut short anywhere must be a 400 JSON error, never an unhandled stream error
 * (which used to stop the whole process: one curl from any key holder took the service down).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
let apiKey: string;
let kbId: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ api_key: apiKey } = await createOrgWithKey(t.deps));
  kbId = (await restClient(t.app, apiKey).post('/api/kbs', { name: 'uploads' })).body.kb.id;
});
afterAll(() => t?.close());

const boundary = 'XYZ';
function body() {
  return (
    `--${boundary}\r\nContent-Disposition: form-data; name="kb_id"\r\n\r\n${kbId}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello world\r\n` +
    `--${boundary}--\r\n`
  );
}

async function upload(payload: string) {
  const res = await t.app.fetch(
    new Request('http://groundwork.test/api/ingest/upload', {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: payload,
    }),
  );
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
}

describe('truncated multipart uploads', () => {
  it('answers 400 invalid_input at every cut point short of the closing boundary', async () => {
    const full = body();
    const closing = full.lastIndexOf(`--${boundary}--`);
    const cuts = new Set<number>();
    for (let at = 1; at < closing; at += 3) cuts.add(at);
    cuts.add(full.indexOf('hello') + 5); // the reported case: the file's bytes, then nothing
    for (const at of cuts) {
      const res = await upload(full.slice(0, at));
      expect([400, 415], `cut at ${at}`).toContain(res.status);
      expect(res.body.error?.code, `cut at ${at}`).toMatch(/^(invalid_input|unsupported_media_type)$/);
    }
    // The service is still up and the whole body still works.
    expect((await upload(full)).status).toBeLessThan(300);
  });
});
