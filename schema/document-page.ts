/** What the dashboard needs beyond the spec's document fields: keyset pages, counts and chunks. */
import { countDocumentsByStatus } from '../src/services/documents/count-documents';
import { listChunks } from '../src/services/documents/list-chunks';
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
    args: { first: t.arg.int({ defaultValue: 50 }), after: t.arg.int() },
    resolve: async (doc, { first, after }, ctx) =>
      listChunks(await ctx.auth(), { kb_id: doc.kb_id, id: doc.id, limit: first ?? 50, ...(after != null ? { after } : {}) }),
  }),
}));
