/**
 * Bulk part of the ingestion benchmark: every document of ../shared/data/docs uploaded through
 * `npm start` in ONE `POST /api/ingest/upload` with repeated `file` parts, then (into another KB of
 * a fresh server) one request per file. Wall time until the upload(s) were accepted, requests sent,
 * and time until every accepted document is ready or failed.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DOCS, fileForm, newKb, seconds, startBenchServer, waitAll } from './ingest-server';

type FileResult = { filename: string; status: 'accepted' | 'refused'; document_id: string | null; error: { code: string; message: string } | null };

async function run(db: 'embedded' | 'postgres', mode: 'one request' | 'one request per file', files: Array<{ name: string; bytes: Uint8Array }>) {
  const b = await startBenchServer(db);
  try {
    const kbId = await newKb(b, 'Bulk');
    const url = `${b.server.url}/api/ingest/upload`;
    const t0 = performance.now();
    const ids: string[] = [];
    const refused: string[] = [];
    let requests = 0;
    if (mode === 'one request') {
      requests++;
      const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, files) });
      if (res.status !== 202) throw new Error(`bulk: ${res.status} ${await res.text()}`);
      for (const f of ((await res.json()) as { files: FileResult[] }).files) {
        if (f.document_id) ids.push(f.document_id);
        else refused.push(`${f.filename} (${f.error?.code})`);
      }
    } else {
      for (const f of files) {
        requests++;
        const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, [f]) });
        const body = (await res.json()) as { document?: { id: string }; error?: { code: string } };
        if (body.document) ids.push(body.document.id);
        else refused.push(`${f.name} (${body.error?.code})`);
      }
    }
    const acceptedMs = performance.now() - t0;
    const { docs } = await waitAll(b, kbId, ids);
    const settledMs = performance.now() - t0;
    const ready = docs.filter((d) => d.status === 'ready').length;
    return { mode, files: files.length, requests, 'accepted s': +(acceptedMs / 1000).toFixed(2), 'all settled s': +(settledMs / 1000).toFixed(1), accepted: ids.length, refused: refused.length, ready, failed: docs.length - ready, refusedList: refused };
  } catch (err) {
    const code = b.server.child.exitCode ?? b.server.child.signalCode;
    throw new Error(`${mode}: ${String(err)}; server ${code === null ? 'running' : `exited ${code}`}, its output ends:\n${b.server.output().slice(-4000)}`);
  } finally {
    await b.stop();
  }
}

export async function bulk(db: 'embedded' | 'postgres'): Promise<void> {
  const files = readdirSync(DOCS)
    .filter((f) => !f.startsWith('MANIFEST'))
    .sort()
    .map((name) => ({ name, bytes: readFileSync(path.join(DOCS, name)) }));
  const mb = files.reduce((a, f) => a + f.bytes.length, 0) / 1048576;
  const rows = [await run(db, 'one request', files), await run(db, 'one request per file', files)];
  console.log(`\nbulk upload of the shared corpus: ${files.length} files, ${mb.toFixed(1)} MB, npm start on ${db} (a fresh server for each mode)`);
  console.table(rows.map(({ refusedList: _, ...r }) => r));
  for (const r of rows) if (r.refusedList.length) console.log(`${r.mode}: refused ${r.refusedList.join(', ')}`);
  console.log(`accepted: one request ${seconds(rows[0]!['accepted s'] * 1000)} vs per file ${seconds(rows[1]!['accepted s'] * 1000)}`);
}
