/**
 * storeChunks in steps (the embedded database): a big document's chunks are written STORE_STEP rows
 * per transaction so one commit does not hold every organisation (docs/security.md, a fair share per
 * organisation).
 * The outcome must be the one transaction's: every chunk once, the document ready; a rerun
 * replaces instead of duplicating; a document deleted meanwhile is reported, not resurrected.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/open-database';
import { newId, type DocumentId, type KbId } from '../../src/ids';
import { graphileJobQueue } from '../../src/jobs/enqueue';
import { storeChunks, type EmbeddedChunk } from '../../src/services/documents/store-chunks';
import { createOrgWithKey } from '../helpers/factories';
import { createTestDatabase } from '../helpers/test-database';

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(async () => {
  await handle?.close();
});

async function newDocument() {
  const { org } = await createOrgWithKey(handle);
  const now = new Date();
  const kb = await handle.db.insertInto('knowledge_bases').values({ id: newId('kb') as KbId, org_id: org.id as never, name: 'steps', description: null, embedding_model: null, embedding_dimensions: null, created_at: now, updated_at: now }).returning(['id']).executeTakeFirstOrThrow();
  const doc = await handle.db
    .insertInto('documents')
    .values({ id: newId('doc') as DocumentId, org_id: org.id as never, kb_id: kb.id, source: 'upload', filename: 'big.txt', content_type: 'txt', size_bytes: 1, status: 'processing', error: null, pages: null, crawl_options: null, created_at: now, updated_at: now })
    .returning(['id', 'kb_id'])
    .executeTakeFirstOrThrow();
  return doc;
}

const chunks = (n: number, word: string): EmbeddedChunk[] =>
  Array.from({ length: n }, (_, position) => ({ text: `${word} ${position}`, headingPath: [], position, tokenCount: 2, embedding: null }));

const meta = { pages: null, dimensions: null, model: null };

it('writes a big document in steps with the same outcome as one transaction, and a rerun replaces its chunks', async () => {
  const doc = await newDocument();
  expect(await storeChunks({ db: handle.db, jobs: graphileJobQueue }, doc, chunks(450, 'first'), meta, { inSteps: true })).toBe(true);
  expect(await storeChunks({ db: handle.db, jobs: graphileJobQueue }, doc, chunks(430, 'second'), meta, { inSteps: true })).toBe(true);
  const rows = await handle.db.selectFrom('chunks').select(['position', 'text']).where('document_id', '=', doc.id).orderBy('position').execute();
  expect(rows.length).toBe(430);
  expect(rows.every((r, i) => r.position === i && r.text === `second ${i}`)).toBe(true);
  const stored = await handle.db.selectFrom('documents').select(['status', 'chunk_count']).where('id', '=', doc.id).executeTakeFirstOrThrow();
  expect(stored).toEqual({ status: 'ready', chunk_count: 430 });
});

it('reports a document deleted before its chunks were written', async () => {
  const doc = await newDocument();
  await handle.db.deleteFrom('documents').where('id', '=', doc.id).execute();
  expect(await storeChunks({ db: handle.db, jobs: graphileJobQueue }, doc, chunks(450, 'gone'), meta, { inSteps: true })).toBe(false);
  expect((await handle.db.selectFrom('chunks').select('id').where('document_id', '=', doc.id).execute()).length).toBe(0);
});
