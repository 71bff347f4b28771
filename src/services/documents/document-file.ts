/**
 * An uploaded document's original bytes, stored in parts of FILE_PART_BYTES (migration 1100).
 *
 * Why parts: every statement's message, and the value it carries, is held whole on both sides of
 * the connection. On the embedded database a 20 MB file written as one value grew PGlite's
 * WebAssembly memory from 189 to 326 MB, which never shrinks, and the web thread built the 20 MB
 * message twice over; read back as one value it came as 40 MB of hex. In parts of a few MB PGlite's memory
 * does not grow and no statement carries more than a part (issue 26: memory after an attack).
 */
import type { Db } from '../../../db/connect';
import type { DocumentId } from '../../ids';

/**
 * 4 MB: writing and reading 24 MB files in parts of 1, 2 or 4 MB left PGlite's memory at its
 * initial 128 MB; larger parts mean fewer statements, and so fewer round trips while the
 * transaction that stores a file holds the embedded database (its other clients wait meanwhile).
 */
export const FILE_PART_BYTES = 4 * 1024 * 1024;

/** Writes the file's parts, one statement each (inside the caller's transaction). */
export async function writeDocumentFile(db: Db, documentId: DocumentId, bytes: Buffer): Promise<void> {
  for (let part = 0, at = 0; part === 0 || at < bytes.length; part++, at += FILE_PART_BYTES) {
    await db.insertInto('document_files').values({ document_id: documentId, part, bytes: bytes.subarray(at, at + FILE_PART_BYTES) }).execute();
  }
}

/** The file's bytes, read a part per statement into one buffer; undefined when the document has none. */
export async function readDocumentFile(db: Db, documentId: DocumentId): Promise<Buffer | undefined> {
  const parts = await db
    .selectFrom('document_files')
    .select((eb) => ['part', eb.fn<number>('octet_length', ['bytes']).as('size')])
    .where('document_id', '=', documentId)
    .orderBy('part')
    .execute();
  if (parts.length === 0) return undefined;
  const file = Buffer.allocUnsafe(parts.reduce((sum, p) => sum + Number(p.size), 0));
  let at = 0;
  for (const { part } of parts) {
    const row = await db.selectFrom('document_files').select('bytes').where('document_id', '=', documentId).where('part', '=', part).executeTakeFirstOrThrow();
    at += row.bytes.copy(file, at);
  }
  return file;
}
