/**
 * A file of several parts (src/services/documents/create-document.ts). On the embedded database its
 * parts are written outside the transaction that creates the document, so no transaction holds the
 * one session for the whole file; either way the job runs at once once the file is whole, a failure
 * while writing leaves nothing behind, and a job that finds its file incomplete (the process died
 * while writing it) fails the document instead of leaving it processing.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DocumentId } from '../../src/ids';
import { FILE_PART_BYTES, readDocumentFile } from '../../src/services/documents/document-file';
import { runIngestion } from '../../src/services/documents/run-ingestion';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { orgWithKb, seededProse } from '../helpers/ingestion-load';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Text of a little over two parts. */
const bigText = () => {
  const prose = seededProse(31, 400);
  return prose.repeat(Math.ceil((2 * FILE_PART_BYTES + 1000) / prose.length));
};

const jobOf = async (id: string) =>
  (await sql<{ run_at: Date }>`select run_at from graphile_worker._private_jobs where key = ${`ingest:${id}`}`.execute(t.db)).rows[0];

it('stores every part of a big upload, outside the creating transaction on the embedded database, and queues its job to run now', async () => {
  const a = await orgWithKb(t);
  const text = bigText();
  // Which transaction wrote the row and each part.
  await sql`create table written_in (what text, tx bigint)`.execute(t.db);
  await sql.raw(`create function note_tx() returns trigger language plpgsql as $$
    begin
      insert into written_in values (tg_table_name || coalesce(':' || (to_jsonb(new)->>'part'), ''), txid_current());
      return new;
    end $$`).execute(t.db);
  await sql`create trigger note_tx after insert on documents for each row execute function note_tx()`.execute(t.db);
  await sql`create trigger note_tx after insert on document_files for each row execute function note_tx()`.execute(t.db);
  let up: Awaited<ReturnType<typeof uploadFile>>;
  let written: Array<{ what: string; tx: string }>;
  try {
    up = await uploadFile(t.app, a.key, a.kbId, { name: 'big.txt', bytes: text, type: 'text/plain' });
    written = (await sql<{ what: string; tx: string }>`select what, tx::text from written_in order by what`.execute(t.db)).rows;
  } finally {
    await sql`drop trigger note_tx on documents`.execute(t.db);
    await sql`drop trigger note_tx on document_files`.execute(t.db);
    await sql`drop function note_tx()`.execute(t.db);
    await sql`drop table written_in`.execute(t.db);
  }
  expect(up.status).toBe(202);
  expect(written.map((w) => w.what)).toEqual(['document_files:0', 'document_files:1', 'document_files:2', 'documents']);
  const transactions = new Set(written.map((w) => w.tx)).size;
  expect(transactions).toBe(t.deps.config.database.kind === 'embedded' ? 4 : 1);
  const id = up.body.document.id as DocumentId;
  expect((await readDocumentFile(t.db, id))!.toString()).toBe(text);
  const job = await jobOf(id);
  expect(job).toBeDefined();
  // Not the held-back time of a file still being written (10 minutes ahead).
  expect(job!.run_at.getTime()).toBeLessThan(Date.now() + 5_000);
});

it('leaves no document, part or job behind when writing a part fails', async () => {
  const a = await orgWithKb(t);
  await sql.raw(`create function fail_second_part() returns trigger language plpgsql as $$
    begin
      if new.part >= 1 then raise exception 'simulated failure writing a part'; end if;
      return new;
    end $$`).execute(t.db);
  await sql`create trigger fail_second_part before insert on document_files for each row execute function fail_second_part()`.execute(t.db);
  try {
    const up = await uploadFile(t.app, a.key, a.kbId, { name: 'big.txt', bytes: bigText(), type: 'text/plain' });
    expect(up.status).toBe(500);
    expect(up.body.error.code).toBe('internal_error');
  } finally {
    await sql`drop trigger fail_second_part on document_files`.execute(t.db);
    await sql`drop function fail_second_part()`.execute(t.db);
  }
  const left = await t.db.selectFrom('documents').select('id').where('kb_id', '=', a.kbId as never).execute();
  expect(left).toEqual([]);
  const jobs = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs where payload->>'document_id' not in (select id from documents)`.execute(t.db);
  expect(jobs.rows[0]!.n).toBe(0);
});

it('fails a document whose job finds its file incomplete, asking for the upload again', async () => {
  const a = await orgWithKb(t);
  const up = await uploadFile(t.app, a.key, a.kbId, { name: 'big.txt', bytes: bigText(), type: 'text/plain' });
  expect(up.status).toBe(202);
  const id = up.body.document.id as DocumentId;
  // As if the process had died before writing the last part.
  await t.db.deleteFrom('document_files').where('document_id', '=', id).where('part', '=', 2).execute();
  expect(await runIngestion(t.deps, id)).toBe('failed');
  const doc = await t.db.selectFrom('documents').select(['status', 'error']).where('id', '=', id).executeTakeFirstOrThrow();
  expect(doc.status).toBe('failed');
  expect(doc.error).toMatch(/upload was interrupted.*upload it again/);
});

it('creates a small upload, its file and its job in one statement on the embedded database, in one transaction on PostgreSQL', async () => {
  const a = await orgWithKb(t);
  // The statement and the transaction that wrote each row.
  await sql`create table written_in (what text, tx bigint, statement_at timestamptz)`.execute(t.db);
  await sql.raw(`create function note_statement() returns trigger language plpgsql as $$
    begin
      insert into public.written_in values (tg_table_name, txid_current(), statement_timestamp());
      return new;
    end $$`).execute(t.db);
  const tables = ['documents', 'document_files', 'graphile_worker._private_jobs'];
  for (const table of tables) await sql`create trigger note_statement after insert on ${sql.raw(table)} for each row execute function note_statement()`.execute(t.db);
  // statement_at as text: microseconds (a Date keeps milliseconds, and two statements of a fast
  // machine's transaction can fall in the same one).
  let written: Array<{ what: string; tx: string; statement_at: string }>;
  try {
    const up = await uploadFile(t.app, a.key, a.kbId, { name: 'note.md', bytes: '# Returns\n\nWithin 30 days.\n', type: 'text/markdown' });
    expect(up.status).toBe(202);
    written = (await sql<{ what: string; tx: string; statement_at: string }>`select what, tx::text, statement_at::text from written_in order by what`.execute(t.db)).rows;
  } finally {
    for (const table of tables) await sql`drop trigger note_statement on ${sql.raw(table)}`.execute(t.db);
    await sql`drop function note_statement()`.execute(t.db);
    await sql`drop table written_in`.execute(t.db);
  }
  expect(written.map((w) => w.what)).toEqual(['_private_jobs', 'document_files', 'documents']);
  expect(new Set(written.map((w) => w.tx)).size).toBe(1);
  const statements = new Set(written.map((w) => w.statement_at)).size;
  expect(statements).toBe(t.deps.config.database.kind === 'embedded' ? 1 : 3);
});

it('refuses the document over the plan limit in that one statement too, writing nothing', async () => {
  const org = await createOrgWithKey(t.deps, { plan: 'free' });
  const a = { key: org.api_key, kbId: (await restClient(t.app, org.api_key).post('/api/kbs', { name: 'KB' })).body.kb.id as string };
  const accepted = await Promise.all(Array.from({ length: 50 }, (_, i) => uploadFile(t.app, a.key, a.kbId, { name: `n${i}.txt`, bytes: `Note ${i}.`, type: 'text/plain' })));
  expect(accepted.map((r) => r.status)).toEqual(Array(50).fill(202));
  const jobsBefore = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs`.execute(t.db);
  const refused = await uploadFile(t.app, a.key, a.kbId, { name: 'one-too-many.txt', bytes: 'Note.', type: 'text/plain' });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'plan_limit_exceeded', message: 'The free plan allows 50 documents; delete some or upgrade the plan' });
  const jobsAfter = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs`.execute(t.db);
  expect(jobsAfter.rows[0]!.n).toBe(jobsBefore.rows[0]!.n);
  expect(await t.db.selectFrom('documents').select('id').where('filename', '=', 'one-too-many.txt').execute()).toEqual([]);
});
