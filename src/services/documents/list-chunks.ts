/**
 * A document's chunks in reading order: what the assistant will read, as the dashboard shows it.
 * `query` narrows them to those containing the words (case-insensitive substring, so a phrase or a
 * part number is found as typed), so a 950-chunk document needs no paging to find one passage.
 * Each chunk says whether it is switched off, was edited, and how many other chunks of the KB have
 * the same text (duplicates: one of them is usually worth switching off).
 */
import { sql } from 'kysely';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireDocument } from './get-document';
import { withOrgRead } from '../org-share';
import { authorize } from '../access/roles';

export const ZListChunksInput = z
  .object({
    kb_id: z.string().min(1),
    id: z.string().min(1),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** Position of the last chunk already shown. */
    after: z.coerce.number().int().min(-1).default(-1),
    query: z.string().trim().max(200).optional(),
  })
  .strict();

/** The columns of `chunks as c` a ChunkDto is made of (also read by curate-chunk.ts). */
export const CHUNK_COLUMNS = [
  'c.id',
  'c.position',
  'c.text',
  'c.heading_path',
  'c.page',
  'c.url',
  'c.token_count',
  'c.disabled_at',
  'c.edited_at',
  // Served by chunks_kb_text_md5_idx (migration 0920): one index probe per chunk shown.
  sql<number>`(select count(*) from chunks d where d.kb_id = c.kb_id and md5(d.text) = md5(c.text) and d.id <> c.id)::int`.as('duplicates'),
] as const;

type ChunkRowRead = {
  id: string;
  position: number;
  text: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
  token_count: number;
  disabled_at: Date | null;
  edited_at: Date | null;
  duplicates: number;
};

export function chunkDto(r: ChunkRowRead) {
  return {
    id: r.id,
    position: r.position,
    text: r.text,
    heading_path: r.heading_path,
    page: r.page,
    url: r.url,
    token_count: r.token_count,
    /** False when an administrator switched it off: kept, never retrieved. */
    enabled: r.disabled_at === null,
    edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null,
    /** Other chunks of the same KB with exactly this text. */
    duplicates: Number(r.duplicates),
  };
}

export type ChunkDto = ReturnType<typeof chunkDto>;

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

async function listChunksNow(ctx: ServiceContext, rawInput: z.input<typeof ZListChunksInput>) {
  const input = parseInput(ZListChunksInput, rawInput);
  const doc = await requireDocument(ctx, { kb_id: input.kb_id, id: input.id });
  let q = ctx.db
    .selectFrom('chunks as c')
    .select(CHUNK_COLUMNS)
    .where('c.document_id', '=', doc.id)
    .where('c.position', '>', input.after);
  if (input.query) q = q.where(sql<boolean>`c.text ilike ${likePattern(input.query)}`);
  const rows = (await q.orderBy('c.position').limit(input.limit + 1).execute()) as ChunkRowRead[];
  const more = rows.length > input.limit;
  const chunks = (more ? rows.slice(0, input.limit) : rows).map(chunkDto);
  return { chunks, next_after: more ? chunks[chunks.length - 1]!.position : null };
}

/** In the organisation's read line (src/services/org-share.ts): a fanned-out read holds two connections at most. */
export function listChunks(ctx: ServiceContext, rawInput: z.input<typeof ZListChunksInput>) {
  authorize(ctx, 'content.read');
  return withOrgRead(ctx, () => listChunksNow(ctx, rawInput));
}
