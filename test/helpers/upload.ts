import type { App } from '../../src/app';

/** A multipart upload exactly as a browser or curl -F would send it. */
export async function uploadFile(app: App, apiKey: string, kbId: string | null, file: { name: string; bytes: Uint8Array | string; type?: string } | null) {
  const form = new FormData();
  if (file) form.set('file', new Blob([file.bytes as BlobPart], { type: file.type ?? 'application/octet-stream' }), file.name);
  if (kbId !== null) form.set('kb_id', kbId);
  const res = await app.fetch(new Request('http://groundwork.test/api/ingest/upload', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}
