import type { DocumentDto } from '../src/services/documents/document-dto';
import { builder } from './builder';

export const DocumentStatusEnum = builder.enumType('DocumentStatus', { values: ['processing', 'ready', 'failed'] as const });
export const DocumentSourceEnum = builder.enumType('DocumentSource', { values: ['upload', 'url'] as const });

export const DocumentRef = builder.objectRef<DocumentDto>('Document').implement({
  description: 'A file or crawled URL added to a knowledge base',
  fields: (t) => ({
    id: t.exposeID('id'),
    kbId: t.exposeID('kb_id'),
    filename: t.exposeString('filename', { description: 'Original file name, or the crawled URL' }),
    source: t.field({ type: DocumentSourceEnum, resolve: (d) => d.source }),
    contentType: t.exposeString('content_type', { nullable: true }),
    status: t.field({ type: DocumentStatusEnum, resolve: (d) => d.status }),
    chunkCount: t.exposeInt('chunk_count'),
    error: t.exposeString('error', { nullable: true, description: 'Why ingestion failed (status failed)' }),
    sizeBytes: t.exposeInt('size_bytes', { nullable: true }),
    pages: t.exposeInt('pages', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (d) => d.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (d) => d.updated_at }),
  }),
});
