/**
 * An uploaded file is stored in parts of FILE_PART_BYTES (4 MB) (src/services/documents/document-file.ts, migration
 * 1100): it reads back byte for byte, and writing and reading a 20 MB file does not grow the
 * embedded database's WebAssembly memory, which never shrinks (as one value it grew 189 → 326 MB).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool, type Db } from '../../db/connect';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../db/embedded/open-embedded';
import type { DocumentId } from '../../src/ids';
import { FILE_PART_BYTES, readDocumentFile, writeDocumentFile } from '../../src/services/documents/document-file';

let embedded: EmbeddedDatabase;
let db: Db;
const MB = 1024 * 1024;
const wasmBytes = () => (embedded.pglite as unknown as { mod: { HEAPU8: Uint8Array } }).mod.HEAPU8.length;

beforeAll(async () => {
  embedded = await openEmbeddedDatabase({ dataDir: null });
  db = createDb(createPool(embedded.connectionString, 2, { embedded: true }));
  // The table as migrations 0002 and 1100 leave it, without the documents it references.
  await embedded.pglite.exec(`create table document_files (document_id text not null, part integer not null default 0, bytes bytea not null, primary key (document_id, part))`);
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await embedded?.close();
});

describe('document files in parts', () => {
  it('stores a file in parts and reads it back byte for byte', async () => {
    const bytes = randomBytes(Math.round(2.5 * FILE_PART_BYTES));
    await writeDocumentFile(db, 'doc_a' as DocumentId, bytes);
    const parts = await db.selectFrom('document_files').select(['part', (eb) => eb.fn<number>('octet_length', ['bytes']).as('size')]).where('document_id', '=', 'doc_a' as DocumentId).orderBy('part').execute();
    expect(parts.map((p) => [p.part, Number(p.size)])).toEqual([[0, FILE_PART_BYTES], [1, FILE_PART_BYTES], [2, bytes.length - 2 * FILE_PART_BYTES]]);
    expect((await readDocumentFile(db, 'doc_a' as DocumentId))!.equals(bytes)).toBe(true);
    expect(await readDocumentFile(db, 'doc_none' as DocumentId)).toBeUndefined();
  });

  it('reads a file stored before parts (one row, part 0)', async () => {
    const bytes = Buffer.from('stored whole');
    await db.insertInto('document_files').values({ document_id: 'doc_old' as DocumentId, bytes }).execute();
    expect((await readDocumentFile(db, 'doc_old' as DocumentId))!.toString()).toBe('stored whole');
  });

  it("writes and reads a 20 MB file without growing PGlite's memory", async () => {
    const before = wasmBytes();
    for (let i = 0; i < 3; i++) {
      const bytes = Buffer.alloc(20 * MB, 0x61 + i);
      await writeDocumentFile(db, `doc_big${i}` as DocumentId, bytes);
      expect((await readDocumentFile(db, `doc_big${i}` as DocumentId))!.equals(bytes)).toBe(true);
    }
    expect(wasmBytes() - before).toBeLessThan(16 * MB);
  }, 120_000);
});
