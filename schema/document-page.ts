/** What the dashboard needs beyond the spec's document fields: keyset pages, counts and chunks. */
import { countDocumentsByStatus } from '../src/services/documents/count-documents';
import { updateChunk } from '../src/services/documents/curate-chunk';
import { explainFailure } from '../src/services/documents/explain-failure';
import { listChunks } from '../src/services/documents/list-chunks';
import { listCrawlPages, type CrawlPageDto } from '../src/services/documents/list-crawl-pages';
import { listDocuments } from '../src/services/documents/list-documents';
import { builder } from './builder';
import { DocumentRef, DocumentStatusEnum } from './document';
import { KnowledgeBaseRef } from './knowledge-base';

const DocumentPage = builder.objectRef<Awaited<ReturnType<typeof listDocuments>>>('DocumentPage').implement({
  fields: (t) => ({
    nodes: t.field({ type: [DocumentRef], resolve: (p) => p.documents }),
    nextCursor: t.exposeString('next_cursor', { nullable: true, description: 'Pass as `after` for the next page; null on the last page' }),
  }),
});

const DocumentCounts = builder.objectRef<Awaited<ReturnType<typeof countDocumentsByStatus>>>('DocumentCounts').implement({
  fields: (t) => ({ processing: t.exposeInt('processing'), ready: t.exposeInt('ready'), failed: t.exposeInt('failed') }),
});

type ChunkDto = Awaited<ReturnType<typeof listChunks>>['chunks'][number];
const ChunkRef = builder.objectRef<ChunkDto>('Chunk').implement({
  description: 'A passage of a document, as retrieval reads it',
  fields: (t) => ({
    id: t.exposeID('id'),
    position: t.exposeInt('position'),
    text: t.exposeString('text'),
    headingPath: t.exposeStringList('heading_path'),
    page: t.exposeInt('page', { nullable: true }),
    url: t.exposeString('url', { nullable: true }),
    tokenCount: t.exposeInt('token_count'),
    enabled: t.exposeBoolean('enabled', { description: 'False when switched off: kept, never retrieved' }),
    editedAt: t.field({ type: 'DateTime', nullable: true, description: 'When an administrator last rewrote the text', resolve: (c) => c.edited_at }),
    duplicates: t.exposeInt('duplicates', { description: 'Other chunks of the same knowledge base with exactly this text' }),
  }),
});

const CrawlPageStateEnum = builder.enumType('CrawlPageState', { values: ['ready', 'skipped', 'failed'] as const });
const CrawlChangeEnum = builder.enumType('CrawlPageChange', { values: ['added', 'changed', 'unchanged'] as const });
const CrawlPageRef = builder.objectRef<CrawlPageDto>('CrawlPage').implement({
  description: 'One page of a crawled site',
  fields: (t) => ({
    url: t.exposeString('url'),
    title: t.exposeString('title', { nullable: true }),
    state: t.field({ type: CrawlPageStateEnum, resolve: (p) => p.state }),
    chunks: t.exposeInt('chunks'),
    fetchedAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.fetched_at }),
    changedAt: t.field({ type: 'DateTime', nullable: true, description: 'When its content last changed', resolve: (p) => p.changed_at }),
    lastChange: t.field({ type: CrawlChangeEnum, nullable: true, description: 'How the last crawl found it', resolve: (p) => p.last_change }),
    reason: t.exposeString('reason', { nullable: true, description: 'Skipped or failed: why, in plain words' }),
    detail: t.exposeString('detail', { nullable: true, description: 'Skipped or failed: the technical reason' }),
  }),
});

const ChunkPage = builder.objectRef<Awaited<ReturnType<typeof listChunks>>>('ChunkPage').implement({
  fields: (t) => ({
    nodes: t.field({ type: [ChunkRef], resolve: (p) => p.chunks }),
    nextAfter: t.exposeInt('next_after', { nullable: true, description: 'Pass as `after` for the next page; null on the last page' }),
  }),
});

builder.objectFields(KnowledgeBaseRef, (t) => ({
  documentPage: t.field({
    type: DocumentPage,
    description: 'Documents newest first, one keyset page at a time (fast at any depth)',
    args: { first: t.arg.int({ defaultValue: 50 }), after: t.arg.string(), status: t.arg({ type: DocumentStatusEnum }) },
    resolve: async (kb, { first, after, status }, ctx) =>
      listDocuments(await ctx.auth(), { kb_id: kb.id, limit: first ?? 50, ...(after ? { cursor: after } : {}), ...(status ? { status } : {}) }),
  }),
  documentCounts: t.field({ type: DocumentCounts, resolve: async (kb, _a, ctx) => countDocumentsByStatus(await ctx.auth(), kb.id) }),
}));

builder.objectFields(DocumentRef, (t) => ({
  chunks: t.field({
    type: ChunkPage,
    description: 'The passages the assistant reads, in document order',
    args: { first: t.arg.int({ defaultValue: 50 }), after: t.arg.int(), query: t.arg.string({ description: 'Only chunks containing this text (case-insensitive)' }) },
    resolve: async (doc, { first, after, query }, ctx) =>
      listChunks(await ctx.auth(), { kb_id: doc.kb_id, id: doc.id, limit: first ?? 50, ...(after != null ? { after } : {}), ...(query ? { query } : {}) }),
  }),
  crawlPages: t.field({
    type: [CrawlPageRef],
    nullable: true,
    description: 'URL documents: the pages of the crawl (failed ones first); null for uploads',
    resolve: async (doc, _a, ctx) => (doc.source === 'url' ? (await listCrawlPages(await ctx.auth(), { kb_id: doc.kb_id, id: doc.id })).pages : null),
  }),
  errorSummary: t.string({ nullable: true, description: 'Why ingestion failed, in plain words (`error` holds the technical reason)', resolve: (doc) => explainFailure(doc.error) }),
}));

builder.mutationFields((t) => ({
  updateChunk: t.field({
    type: ChunkRef,
    description: 'Switch a chunk off or on (off: kept, never retrieved), or rewrite its text (re-embedded, marked edited)',
    args: { kbId: t.arg.id({ required: true }), documentId: t.arg.id({ required: true }), chunkId: t.arg.id({ required: true }), enabled: t.arg.boolean(), text: t.arg.string() },
    resolve: async (_r, { kbId, documentId, chunkId, enabled, text }, ctx) =>
      (
        await updateChunk(await ctx.auth(), {
          kb_id: String(kbId),
          id: String(documentId),
          chunk_id: String(chunkId),
          ...(enabled != null ? { enabled } : {}),
          ...(text != null ? { text } : {}),
        })
      ).chunk,
  }),
}));
