import type { DocumentDto } from '../src/services/documents/document-dto';
import { deleteDocument } from '../src/services/documents/delete-document';
import { getDocument } from '../src/services/documents/get-document';
import { ingestUpload, type AcceptedFile } from '../src/services/documents/ingest-upload';
import { ingestUrl } from '../src/services/documents/ingest-url';
import { ingestUploads, type UploadedFile, type UploadReport } from '../src/services/documents/ingest-uploads';
import { getUploadBatch, type UploadBatchDto } from '../src/services/documents/upload-batch';
import { reingestDocument } from '../src/services/documents/reingest-document';
import { recrawlNow, setRecrawl } from '../src/services/documents/recrawl-document';
import { AppError } from '../src/errors';
import { setDocumentEnabled } from '../src/services/documents/set-document-enabled';
import { builder } from './builder';

export const DocumentStatusEnum = builder.enumType('DocumentStatus', { values: ['processing', 'ready', 'failed'] as const });
export const DocumentSourceEnum = builder.enumType('DocumentSource', { values: ['upload', 'url'] as const });

export const IngestStageEnum = builder.enumType('IngestStage', { values: ['parsing', 'ocr', 'chunking', 'embedding'] as const });
export const ProgressUnitEnum = builder.enumType('ProgressUnit', { values: ['pages', 'chunks'] as const });

const IngestProgressRef = builder.objectRef<NonNullable<DocumentDto['progress']>>('IngestProgress').implement({
  description: 'How far the current ingestion stage has got',
  fields: (t) => ({
    done: t.exposeInt('done'),
    total: t.exposeInt('total'),
    unit: t.field({ type: ProgressUnitEnum, resolve: (p) => p.unit }),
  }),
});

export const RecrawlEnum = builder.enumType('RecrawlSchedule', { values: ['daily', 'weekly'] as const });
const CrawlChangesRef = builder.objectRef<NonNullable<DocumentDto['last_crawl_changes']>>('CrawlChanges').implement({
  description: 'Pages the last crawl added, changed (re-embedded), removed and found unchanged',
  fields: (t) => ({ added: t.exposeInt('added'), changed: t.exposeInt('changed'), removed: t.exposeInt('removed'), unchanged: t.exposeInt('unchanged') }),
});

const DocumentIdentityRef = builder.objectRef<NonNullable<DocumentDto['identity']>>('DocumentIdentity').implement({
  description: "Whose document it is, what kind and which period, as the document says (cover page, running headers, real metadata title, file name last)",
  fields: (t) => ({
    subject: t.exposeString('subject', { nullable: true, description: 'The issuer, organisation or thing the document is about' }),
    kind: t.exposeString('kind', { nullable: true, description: 'Kind of document ("Form 10-K", "Employee Handbook")' }),
    period: t.exposeString('period', { nullable: true, description: 'Period it covers, as written' }),
    source: t.exposeString('source', { nullable: true, description: 'Where the subject was read: caption (a line the document captions as its name), cover, running (header or footer), title (metadata) or filename' }),
    confidence: t.exposeString('confidence', { description: 'high: a line the document names itself by (caption, a cover line its body repeats, metadata title); low: a guess (running header, unrepeated cover line, file name)' }),
  }),
});

const DocumentWarningRef = builder.objectRef<DocumentDto['warnings'][number]>('DocumentWarning').implement({
  description: 'A caveat on a ready document',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'ocr_unsure (text may be wrong) or ocr_unreadable (pages left out)' }),
    message: t.exposeString('message'),
    pages: t.exposeIntList('pages'),
  }),
});

export const DocumentRef = builder.objectRef<DocumentDto>('Document').implement({
  description: 'A file or crawled URL added to a knowledge base',
  fields: (t) => ({
    id: t.exposeID('id'),
    kbId: t.exposeID('kb_id'),
    filename: t.exposeString('filename', { description: 'Original file name, or the crawled URL' }),
    source: t.field({ type: DocumentSourceEnum, resolve: (d) => d.source }),
    contentType: t.exposeString('content_type', { nullable: true }),
    enabled: t.exposeBoolean('enabled', { description: 'false: switched off, kept and listed but never retrieved' }),
    status: t.field({ type: DocumentStatusEnum, resolve: (d) => d.status }),
    chunkCount: t.exposeInt('chunk_count'),
    error: t.exposeString('error', { nullable: true, description: 'Why ingestion failed (status failed)' }),
    sizeBytes: t.exposeInt('size_bytes', { nullable: true }),
    pages: t.exposeInt('pages', { nullable: true }),
    stage: t.field({ type: IngestStageEnum, nullable: true, description: 'What ingestion is doing now; null once settled', resolve: (d) => d.stage }),
    progress: t.field({ type: IngestProgressRef, nullable: true, resolve: (d) => d.progress }),
    identity: t.field({
      type: DocumentIdentityRef,
      nullable: true,
      description: 'What the document is about, read from the document itself at ingestion; null before it was (re-)ingested',
      resolve: (d) => d.identity,
    }),
    ocrPages: t.exposeIntList('ocr_pages', { description: 'Pages whose text was read by OCR' }),
    warnings: t.field({
      type: [DocumentWarningRef],
      description: 'What to check on a ready document: pages OCR was unsure of or could not read',
      resolve: (d) => d.warnings,
    }),
    language: t.exposeString('language', { nullable: true, description: 'The language of its text, detected at ingestion (ISO 639-1 where there is a code); null before it was (re-)ingested or with too little text to tell' }),
    recrawl: t.field({ type: RecrawlEnum, nullable: true, resolve: (d) => d.recrawl }),
    lastCrawledAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.last_crawled_at }),
    nextCrawlAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.next_crawl_at }),
    lastCrawlChanges: t.field({ type: CrawlChangesRef, nullable: true, resolve: (d) => d.last_crawl_changes }),
    createdAt: t.field({ type: 'DateTime', resolve: (d) => d.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (d) => d.updated_at }),
  }),
});

const UploadStatusEnum = builder.enumType('UploadFileStatus', { values: ['accepted', 'queued', 'duplicate', 'replaced', 'refused', 'skipped'] as const });
const UploadErrorRef = builder.objectRef<NonNullable<UploadReport['error']>>('UploadFileError').implement({
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});
const UploadReportRef = builder.objectRef<UploadReport>('UploadFileReport').implement({
  description: 'What became of one uploaded file (or one entry of an uploaded ZIP)',
  fields: (t) => ({
    filename: t.exposeString('filename'),
    status: t.field({ type: UploadStatusEnum, resolve: (r) => r.status }),
    documentId: t.exposeID('document_id', { nullable: true }),
    error: t.field({ type: UploadErrorRef, nullable: true, resolve: (r) => r.error }),
  }),
});
const UploadFileResultRef = builder.objectRef<AcceptedFile>('UploadFileResult').implement({
  description: "One uploaded file's outcome: a new document, or the KB's document that already has this file",
  fields: (t) => ({
    document: t.field({ type: DocumentRef, resolve: (r) => r.document }),
    duplicate: t.exposeBoolean('duplicate', { description: 'The KB already had this file (same bytes): document is that one, nothing new was stored' }),
    replaced: t.exposeBoolean('replaced', { description: 'With replace: true, that document is being ingested again' }),
  }),
});

const BulkUploadResultRef = builder.objectRef<{ batch_id: string; documents: DocumentDto[]; files: UploadReport[] }>('BulkUploadResult').implement({
  fields: (t) => ({
    batchId: t.exposeID('batch_id', { description: "The batch: its progress is the query uploadBatch(kbId, id)" }),
    documents: t.field({ type: [DocumentRef], resolve: (r) => r.documents }),
    files: t.field({ type: [UploadReportRef], resolve: (r) => r.files }),
  }),
});

const UploadBatchStatusEnum = builder.enumType('UploadBatchStatus', { values: ['processing', 'done'] as const });
const UploadBatchCountsRef = builder.objectRef<UploadBatchDto['counts']>('UploadBatchCounts').implement({
  description: "The batch's documents per status",
  fields: (t) => ({ processing: t.exposeInt('processing'), ready: t.exposeInt('ready'), failed: t.exposeInt('failed') }),
});
const UploadBatchRef = builder.objectRef<UploadBatchDto>('UploadBatch').implement({
  description: 'A bulk upload (several files or a ZIP) and how far its documents have got',
  fields: (t) => ({
    id: t.exposeID('id'),
    kbId: t.exposeID('kb_id'),
    status: t.field({ type: UploadBatchStatusEnum, description: 'done once no document of the batch is processing', resolve: (b) => b.status }),
    percent: t.exposeInt('percent', { description: 'Settled documents count whole, processing ones by their progress; 100 only when done' }),
    counts: t.field({ type: UploadBatchCountsRef, resolve: (b) => b.counts }),
    documents: t.field({ type: [DocumentRef], description: 'The documents the upload created (a deleted one is gone)', resolve: (b) => b.documents }),
    files: t.field({ type: [UploadReportRef], description: 'What the upload answered for each file', resolve: (b) => b.files }),
    createdAt: t.field({ type: 'DateTime', resolve: (b) => b.created_at }),
  }),
});

const IngestUrlInput = builder.inputType('IngestUrlInput', {
  fields: (t) => ({
    kbId: t.id({ required: true }),
    url: t.string({ required: true }),
    maxPages: t.int(),
    maxDepth: t.int(),
    include: t.stringList(),
    exclude: t.stringList(),
    sitemap: t.boolean(),
    recrawl: t.field({ type: RecrawlEnum }),
  }),
});

const defined = <T extends Record<string, unknown>>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as { [K in keyof T]?: NonNullable<T[K]> };

builder.queryFields((t) => ({
  uploadBatch: t.field({
    type: UploadBatchRef,
    description: "A bulk upload's progress, by the batchId uploadDocuments returned",
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, { kbId, id }, ctx) => (await getUploadBatch(await ctx.auth(), { kb_id: String(kbId), id: String(id) })).batch,
  }),
  document: t.field({
    type: DocumentRef,
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, { kbId, id }, ctx) => (await getDocument(await ctx.auth(), { kb_id: String(kbId), id: String(id) })).document,
  }),
}));

builder.mutationFields((t) => ({
  uploadDocument: t.field({
    type: DocumentRef,
    description:
      'Upload a PDF, DOCX, TXT or MD file (GraphQL multipart request spec). A file the KB already has (same bytes) answers that document, storing nothing; with replace: true that document is ingested again',
    args: { kbId: t.arg.id({ required: true }), file: t.arg({ type: 'File', required: true }), replace: t.arg.boolean({ description: 'Ingest again the document that already has this file (default false)' }) },
    resolve: async (_root, { kbId, file, replace }, ctx) => {
      const svc = await ctx.auth();
      if (file.size > svc.config.maxUploadBytes) {
        throw new AppError('payload_too_large', `The file exceeds the upload limit of ${Math.round(svc.config.maxUploadBytes / 1048576)} MB`, { field: 'file' });
      }
      const bytes = Buffer.from(await file.arrayBuffer());
      return (await ingestUpload(svc, { kb_id: String(kbId), filename: file.name, bytes, replace: replace ?? false })).document;
    },
  }),
  uploadFile: t.field({
    type: UploadFileResultRef,
    description: 'uploadDocument that also says whether the KB already had the file (REST and tRPC answer the same {document, duplicate, replaced})',
    args: { kbId: t.arg.id({ required: true }), file: t.arg({ type: 'File', required: true }), replace: t.arg.boolean({ description: 'Ingest again the document that already has this file (default false)' }) },
    resolve: async (_root, { kbId, file, replace }, ctx) => {
      const svc = await ctx.auth();
      if (file.size > svc.config.maxUploadBytes) {
        throw new AppError('payload_too_large', `The file exceeds the upload limit of ${Math.round(svc.config.maxUploadBytes / 1048576)} MB`, { field: 'file' });
      }
      const answer = await ingestUpload(svc, { kb_id: String(kbId), filename: file.name, bytes: Buffer.from(await file.arrayBuffer()), replace: replace ?? false });
      return 'duplicate' in answer ? answer : { ...answer, duplicate: false, replaced: false };
    },
  }),
  uploadDocuments: t.field({
    type: BulkUploadResultRef,
    description: 'Upload several files, or ZIP archives of files, in one request; each file is accepted or refused on its own',
    args: {
      kbId: t.arg.id({ required: true }),
      files: t.arg({ type: ['File'], required: true }),
      replace: t.arg.boolean({ description: 'Ingest again the documents that already have these files (default false: reported as duplicate)' }),
    },
    resolve: async (_root, { kbId, files, replace }, ctx) => {
      const svc = await ctx.auth();
      const { maxFiles } = svc.config.bulkUpload;
      if (files.length > maxFiles) throw new AppError('invalid_input', `Upload at most ${maxFiles} files per request`, { field: 'files' });
      const uploaded: UploadedFile[] = [];
      for (const file of files) {
        const tooLarge = file.size > svc.config.maxUploadBytes;
        uploaded.push({ filename: file.name, bytes: tooLarge ? Buffer.alloc(0) : Buffer.from(await file.arrayBuffer()), tooLarge });
      }
      return ingestUploads(svc, { kb_id: String(kbId), files: uploaded, replace: replace ?? false });
    },
  }),
  ingestUrl: t.field({
    type: DocumentRef,
    args: { input: t.arg({ type: IngestUrlInput, required: true }) },
    resolve: async (_root, { input }, ctx) =>
      (
        await ingestUrl(await ctx.auth(), {
          kb_id: String(input.kbId),
          url: input.url,
          ...defined({ max_pages: input.maxPages, max_depth: input.maxDepth, include: input.include, exclude: input.exclude, sitemap: input.sitemap, recrawl: input.recrawl }),
        })
      ).document,
  }),
  deleteDocument: t.field({
    type: builder.objectRef<{ success: boolean }>('DeleteDocumentResult').implement({ fields: (f) => ({ success: f.exposeBoolean('success') }) }),
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, { kbId, id }, ctx) => deleteDocument(await ctx.auth(), { kb_id: String(kbId), id: String(id) }),
  }),
  recrawlDocument: t.field({
    type: DocumentRef,
    description: 'Re-crawl a URL document now; only changed pages are re-embedded',
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, { kbId, id }, ctx) => (await recrawlNow(await ctx.auth(), { kb_id: String(kbId), id: String(id) })).document,
  }),
  setDocumentRecrawl: t.field({
    type: DocumentRef,
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }), recrawl: t.arg({ type: RecrawlEnum, required: false }) },
    resolve: async (_root, { kbId, id, recrawl }, ctx) =>
      (await setRecrawl(await ctx.auth(), { kb_id: String(kbId), id: String(id), recrawl: recrawl ?? null })).document,
  }),
  setDocumentEnabled: t.field({
    type: DocumentRef,
    description: 'Switch a whole document off (kept and listed, none of its chunks retrieved) or on again',
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }), enabled: t.arg.boolean({ required: true }) },
    resolve: async (_root, { kbId, id, enabled }, ctx) => (await setDocumentEnabled(await ctx.auth(), { kb_id: String(kbId), id: String(id), enabled })).document,
  }),
  reingestDocument: t.field({
    type: DocumentRef,
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, { kbId, id }, ctx) => (await reingestDocument(await ctx.auth(), { kb_id: String(kbId), id: String(id) })).document,
  }),
}));
