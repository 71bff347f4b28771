/**
 * Chunk curation: an administrator switches a chunk off (kept, shown, never retrieved) or on, or
 * rewrites its text (re-embedded at once, marked edited). One service for REST, GraphQL and tRPC.
 *
 * Guarantees:
 *   - a disabled chunk is out of retrieval on both sides (retrieve.ts / vector-search.ts filter on
 *     `disabled_at is null`), and still listed with its document;
 *   - chunks are replaced, never updated in their tsvector (migration 0004 keeps kb_lexicon exact
 *     that way), so an edit deletes the row and inserts its new version under the same id;
 *   - `source_hash` remembers the text ingestion produced: a re-ingest that produces that chunk
 *     again keeps the edit and the switch (carryCuration); one that changed it drops them, as the
 *     source moved on and the edit may no longer be true.
 */
import { chunkLanguage, type Language } from '../../text/language';
import { searchVector } from './search-vector';
import { sql, type Transaction } from 'kysely';
import { z } from 'zod';
import type { Db } from '../../../db/connect';
import type { Database } from '../../../db/types';
import { vectorParam } from '../../../db/vector-param';
import type { ServiceContext } from '../../context';
import { AppError, notFound } from '../../errors';
import { isIdOf, type ChunkId, type DocumentId } from '../../ids';
import { parseInput, storableText } from '../../validation';
import { embeddingText } from './embed-chunks';
import { requireDocument } from './get-document';
import { chunkDto, CHUNK_COLUMNS, type ChunkDto } from './list-chunks';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const MAX_CHUNK_CHARS = 8000;

export const ZUpdateChunkInput = z
  .object({
    kb_id: z.string().min(1),
    id: z.string().min(1),
    chunk_id: z.string().min(1),
    enabled: z.boolean().optional(),
    text: z.string().trim().min(1, 'must not be empty').max(MAX_CHUNK_CHARS).optional(),
  })
  .strict()
  .refine((i) => i.enabled !== undefined || i.text !== undefined, { message: 'Give "enabled", "text" or both', path: ['enabled'] });
export type UpdateChunkInput = z.input<typeof ZUpdateChunkInput>;

export async function updateChunk(ctx: ServiceContext, raw: UpdateChunkInput): Promise<{ chunk: ChunkDto }> {
  authorize(ctx, 'document.write');
  const input = parseInput(ZUpdateChunkInput, raw);
  const doc = await requireDocument(ctx, { kb_id: input.kb_id, id: input.id });
  if (!isIdOf('chunk', input.chunk_id)) throw notFound('Chunk');
  const chunkId = input.chunk_id as ChunkId;
  const text = input.text === undefined ? undefined : storableText(input.text);
  // Embed before the transaction: a remote provider can take seconds, no lock should wait on it.
  const provider = ctx.embeddings.default;
  const embedding = text === undefined ? null : await chunkEmbedding(ctx, doc.id, chunkId, text);

  await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('chunks')
      .select(['id', 'text', 'heading_path', 'page', 'url', 'position', 'disabled_at', 'edited_at', 'source_hash', 'token_count'])
      .where('id', '=', chunkId)
      .where('document_id', '=', doc.id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound('Chunk');
    const disabledAt = input.enabled === undefined ? row.disabled_at : input.enabled ? null : (row.disabled_at ?? new Date());
    const sourceHash = row.source_hash ?? (await md5(trx, row.text));
    if (text === undefined || text === row.text) {
      await trx.updateTable('chunks').set({ disabled_at: disabledAt, source_hash: sourceHash }).where('id', '=', chunkId).execute();
      if (disabledAt !== row.disabled_at) {
        await recordAudit({ ...ctx, db: trx }, { action: disabledAt ? 'chunk.disable' : 'chunk.enable', targetType: 'chunk', targetId: chunkId, changes: { document_id: doc.id } });
      }
      return;
    }
    if (doc.status === 'processing') throw new AppError('conflict', 'The document is being ingested; edit its chunks once it is ready');
    await trx.deleteFrom('chunks').where('id', '=', chunkId).execute();
    await trx
      .insertInto('chunks')
      .values({
        id: chunkId,
        document_id: doc.id,
        kb_id: doc.kb_id,
        position: row.position,
        text,
        heading_path: row.heading_path,
        page: row.page,
        url: row.url,
        token_count: approxTokens(text),
        tsv: searchVector(embeddingText({ text, headingPath: row.heading_path }, doc.title), chunkLanguage(text, doc.language)),
        embedding: embedding ? sql<string>`${vectorParam(embedding)}::vector` : null,
        embedding_dimensions: embedding ? provider.dimensions : null,
        embedding_model: embedding ? provider.id : null,
        disabled_at: disabledAt,
        edited_at: new Date(),
        source_hash: sourceHash,
      })
      .execute();
    await recordAudit({ ...ctx, db: trx }, {
      action: 'chunk.edit',
      targetType: 'chunk',
      targetId: chunkId,
      changes: { document_id: doc.id, before: row.text, after: text, ...(disabledAt !== row.disabled_at ? { enabled: !disabledAt } : {}) },
    });
  });
  const chunk = await ctx.db
    .selectFrom('chunks as c')
    .select(CHUNK_COLUMNS)
    .where('c.id', '=', chunkId)
    .executeTakeFirstOrThrow();
  return { chunk: chunkDto(chunk) };
}

async function chunkEmbedding(ctx: ServiceContext, documentId: DocumentId, chunkId: ChunkId, text: string) {
  const row = await ctx.db
    .selectFrom('chunks')
    .innerJoin('documents', 'documents.id', 'chunks.document_id')
    .select(['chunks.heading_path', 'documents.title'])
    .where('chunks.id', '=', chunkId)
    .where('chunks.document_id', '=', documentId)
    .executeTakeFirst();
  if (!row) throw notFound('Chunk');
  const [vector] = await ctx.embeddings.default.embedDocuments([embeddingText({ text, headingPath: row.heading_path }, row.title)]);
  return vector ?? null;
}

/** The chunker's own measure is not at hand here; ~4 characters a token is what the UI shows. */
const approxTokens = (text: string) => Math.max(1, Math.round(text.length / 4));

async function md5(trx: Transaction<Database>, text: string): Promise<string> {
  const { rows } = await sql<{ h: string }>`select md5(${text}) as h`.execute(trx);
  return rows[0]!.h;
}

/** What an administrator did to a document's chunks, read before ingestion replaces them. */
export type Curation = Array<{
  source_hash: string;
  text: string;
  token_count: number;
  embedding: string | null;
  embedding_dimensions: number | null;
  embedding_model: string | null;
  disabled_at: Date | null;
  edited_at: Date | null;
}>;

export async function readCuration(db: Db | Transaction<Database>, documentId: DocumentId): Promise<Curation> {
  return db
    .selectFrom('chunks')
    .select(['source_hash', 'text', 'token_count', sql<string | null>`embedding::text`.as('embedding'), 'embedding_dimensions', 'embedding_model', 'disabled_at', 'edited_at'])
    .where('document_id', '=', documentId)
    .where('source_hash', 'is not', null)
    .where((eb) => eb.or([eb('disabled_at', 'is not', null), eb('edited_at', 'is not', null)]))
    .execute() as Promise<Curation>;
}

/**
 * Puts the curation back on the document's new chunks whose text is the one it was made against
 * (md5 of the text ingestion produced). `title`: what the document's chunks are indexed under.
 */
export async function carryCuration(
  db: Db | Transaction<Database>,
  documentId: DocumentId,
  curation: Curation,
  title: string | null,
  language: Language | null,
): Promise<number> {
  let carried = 0;
  for (const c of curation) {
    const fresh = await db
      .selectFrom('chunks')
      .select(['id', 'kb_id', 'position', 'heading_path', 'page', 'url'])
      .where('document_id', '=', documentId)
      .where(sql<boolean>`md5(text) = ${c.source_hash}`)
      .where('edited_at', 'is', null)
      .where('disabled_at', 'is', null)
      .execute();
    for (const f of fresh) {
      carried++;
      if (!c.edited_at) {
        await db.updateTable('chunks').set({ disabled_at: c.disabled_at, source_hash: c.source_hash }).where('id', '=', f.id).execute();
        continue;
      }
      await db.deleteFrom('chunks').where('id', '=', f.id).execute();
      await db
        .insertInto('chunks')
        .values({
          id: f.id,
          document_id: documentId,
          kb_id: f.kb_id,
          position: f.position,
          text: c.text,
          heading_path: f.heading_path,
          page: f.page,
          url: f.url,
          token_count: c.token_count,
          tsv: searchVector(embeddingText({ text: c.text, headingPath: f.heading_path }, title), chunkLanguage(c.text, language)),
          embedding: c.embedding ? sql<string>`${c.embedding}::vector` : null,
          embedding_dimensions: c.embedding_dimensions,
          embedding_model: c.embedding_model,
          disabled_at: c.disabled_at,
          edited_at: c.edited_at,
          source_hash: c.source_hash,
        })
        .execute();
    }
  }
  return carried;
}
