/**
 * Bulk part of the ingestion benchmark: every document of ../shared/data/docs uploaded through
 * `npm start` in ONE `POST /api/ingest/upload` with repeated `file` parts, then (into another KB of
 * a fresh server) one request per file. Wall time until the upload(s) were accepted, requests sent,
 * and time until every accepted document is ready or failed.
 *
 * Then issue 44's ZIP figure: a ZIP of ZIP_FILES (1,000, the entry limit) small Markdown files in
 * one request from one organisation while another organisation uploads a 2-chunk file a second
 * later: files accepted or queued, the batch's documents all ready, and the other file's upload to
 * ready (target: every file accepted and ready, the other file ready in under 10 s).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { setUpOrgs } from '../../test/helpers/abuse-run';
import { DOCS, fileForm, newKb, seconds, startBenchServer, waitAll, type BenchServer } from './ingest-server';

type FileResult = { filename: string; status: 'accepted' | 'queued' | 'duplicate' | 'replaced' | 'refused' | 'skipped'; document_id: string | null; error: { code: string; message: string } | null };
type Batch = { status: 'processing' | 'done'; counts: { processing: number; ready: number; failed: number }; documents: Array<{ id: string }>; files: FileResult[] };

/** Polls a bulk upload's batch until none of its files is processing or queued. */
async function settledBatch(url: string, key: string, kbId: string, batchId: string): Promise<Batch> {
  const t0 = performance.now();
  for (;;) {
    const res = await fetch(`${url}/api/kbs/${kbId}/batches/${batchId}`, { headers: { 'x-api-key': key } });
    const { batch } = (await res.json()) as { batch: Batch };
    if (batch.status === 'done') return batch;
    if (performance.now() - t0 > 30 * 60_000) throw new Error(`batch ${batchId} not done in 30 min: ${JSON.stringify(batch.counts)}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function run(db: 'embedded' | 'postgres', mode: 'one request' | 'one request per file', files: Array<{ name: string; bytes: Uint8Array }>) {
  const b = await startBenchServer(db);
  try {
    const kbId = await newKb(b, 'Bulk');
    const url = `${b.server.url}/api/ingest/upload`;
    const t0 = performance.now();
    const ids: string[] = [];
    const refused: string[] = [];
    let requests = 0;
    let acceptedMs = 0;
    if (mode === 'one request') {
      requests++;
      const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, files) });
      if (res.status !== 202) throw new Error(`bulk: ${res.status} ${await res.text()}`);
      const answer = (await res.json()) as { files: FileResult[]; batch_id: string };
      acceptedMs = performance.now() - t0;
      for (const f of answer.files) if (f.status === 'refused') refused.push(`${f.filename} (${f.error?.code})`);
      // Queued files have no document yet: the batch names every document once they all exist.
      const queued = answer.files.some((f) => f.status === 'queued');
      const documents = queued ? (await settledBatch(b.server.url, b.key, kbId, answer.batch_id)).documents.map((d) => d.id) : answer.files.flatMap((f) => (f.document_id ? [f.document_id] : []));
      ids.push(...documents);
    } else {
      for (const f of files) {
        requests++;
        const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, [f]) });
        const body = (await res.json()) as { document?: { id: string }; error?: { code: string } };
        if (body.document) ids.push(body.document.id);
        else refused.push(`${f.name} (${body.error?.code})`);
      }
      acceptedMs = performance.now() - t0;
    }
    const { docs } = await waitAll(b, kbId, ids);
    const settledMs = performance.now() - t0;
    const ready = docs.filter((d) => d.status === 'ready').length;
    return { mode, files: files.length, requests, 'accepted s': +(acceptedMs / 1000).toFixed(2), 'all settled s': +(settledMs / 1000).toFixed(1), accepted: ids.length, refused: refused.length, ready, failed: docs.length - ready, refusedList: refused, failedList: docs.filter((d) => d.status === 'failed').map((d) => `${d.filename} (${d.error})`) };
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
  console.table(rows.map(({ refusedList: _r, failedList: _f, ...r }) => r));
  for (const r of rows) if (r.refusedList.length) console.log(`${r.mode}: refused ${r.refusedList.join(', ')}`);
  for (const r of rows) if (r.failedList.length) console.log(`${r.mode}: failed ${r.failedList.join(', ')}`);
  console.log(`accepted: one request ${seconds(rows[0]!['accepted s'] * 1000)} vs per file ${seconds(rows[1]!['accepted s'] * 1000)}`);
}

const ZIP_FILES = 1_000;
/** Issue 44's bound for another organisation's small file while the ZIP is processed. */
const OTHER_FILE_READY_MS = 10_000;

/** A note of a few paragraphs, its own words (no two files are duplicates). */
function note(i: number): string {
  const para = (p: number) => `Item ${i}.${p}: orders shipped to region ${(i * 7 + p) % 97} arrive in ${(i + p) % 9 + 1} days; returns open for ${(i * 3 + p) % 60 + 1} days.`;
  return `# Note ${i}\n\n${para(1)}\n\n## Details\n\n${para(2)} ${para(3)}\n`;
}

async function readyWithin(url: string, key: string, kbId: string, id: string, timeoutMs: number): Promise<{ status: string; ms: number }> {
  const t0 = performance.now();
  for (;;) {
    const res = await fetch(`${url}/api/kbs/${kbId}/documents/${id}`, { headers: { 'x-api-key': key } });
    const status = res.ok ? ((await res.json()) as { document: { status: string } }).document.status : `http ${res.status}`;
    if (status !== 'processing' || performance.now() - t0 > timeoutMs) return { status, ms: performance.now() - t0 };
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function zipWithNeighbour(b: BenchServer) {
  const orgs = await setUpOrgs(b.server, b.dataDir, b.databaseUrl);
  const { url, key } = orgs.attacker;
  const kbId = await newKb(b, 'ZIP');
  const zip = zipSync(Object.fromEntries(Array.from({ length: ZIP_FILES }, (_, i) => [`notes/note-${i}.md`, strToU8(note(i))])));
  const t0 = performance.now();
  const other = (async () => {
    await new Promise((r) => setTimeout(r, 1_000));
    const form = fileForm(orgs.victim.kbId, [{ name: 'returns.md', bytes: strToU8('# Returns\n\nItems may be returned within 30 days of delivery.\n\n## Refunds\n\nRefunds are issued to the original payment method within 5 business days.\n') }]);
    const started = performance.now();
    const res = await fetch(`${url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': orgs.victim.key }, body: form });
    if (res.status !== 202) throw new Error(`other organisation's file: ${res.status} ${await res.text()}`);
    const id = ((await res.json()) as { document: { id: string } }).document.id;
    const ready = await readyWithin(url, orgs.victim.key, orgs.victim.kbId, id, 300_000);
    return { ...ready, ms: performance.now() - started };
  })();
  const res = await fetch(`${url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: fileForm(kbId, [{ name: 'notes.zip', bytes: zip }]) });
  if (res.status !== 202) throw new Error(`zip: ${res.status} ${await res.text()}`);
  const answer = (await res.json()) as { files: FileResult[]; batch_id: string };
  const acceptedMs = performance.now() - t0;
  const byStatus: Record<string, number> = {};
  for (const f of answer.files) byStatus[f.status] = (byStatus[f.status] ?? 0) + 1;
  const batch = await settledBatch(url, key, kbId, answer.batch_id);
  return { zipBytes: zip.length, acceptedMs, byStatus, batch, settledMs: performance.now() - t0, other: await other };
}

export async function bulkZip(db: 'embedded' | 'postgres'): Promise<void> {
  const b = await startBenchServer(db);
  try {
    const r = await zipWithNeighbour(b);
    const { counts } = r.batch;
    const refused = r.batch.files.filter((f) => f.status === 'refused');
    console.log(`\nZIP of ${ZIP_FILES.toLocaleString('en')} Markdown files (${(r.zipBytes / 1024).toFixed(0)} KB) in one request, npm start on ${db}, another organisation's 2-chunk file sent 1 s in`);
    console.log(`  answered in ${seconds(r.acceptedMs)}: ${JSON.stringify(r.byStatus)}`);
    console.log(`  batch ${r.batch.status} after ${seconds(r.settledMs)}: ${counts.ready} ready, ${counts.failed} failed, ${counts.processing} processing (target: ${ZIP_FILES.toLocaleString('en')} ready: ${counts.ready === ZIP_FILES ? 'met' : 'NOT met'})`);
    if (refused.length) console.log(`  refused: ${refused.slice(0, 5).map((f) => `${f.filename} (${f.error?.code})`).join(', ')}`);
    console.log(`  other organisation's file upload → ${r.other.status}: ${seconds(r.other.ms)} (target < ${seconds(OTHER_FILE_READY_MS)}: ${r.other.status === 'ready' && r.other.ms < OTHER_FILE_READY_MS ? 'met' : 'NOT met'})`);
  } catch (err) {
    const code = b.server.child.exitCode ?? b.server.child.signalCode;
    throw new Error(`zip: ${String(err)}; server ${code === null ? 'running' : `exited ${code}`}, its output ends:\n${b.server.output().slice(-4000)}`);
  } finally {
    await b.stop();
  }
}
