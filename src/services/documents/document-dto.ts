import { z } from 'zod';
import type { DocumentRow } from '../../../db/types';
import type { DocumentIdentity } from '../../../db/json-columns';

export const ZDocument = z.object({
  id: z.string(),
  kb_id: z.string(),
  filename: z.string(),
  source: z.enum(['upload', 'url']),
  content_type: z.string().nullable(),
  status: z.enum(['processing', 'ready', 'failed']),
  chunk_count: z.number().int(),
  error: z.string().nullable(),
  size_bytes: z.number().int().nullable(),
  pages: z.number().int().nullable(),
  /** What a processing document is doing; null once it is ready or failed. */
  stage: z.enum(['parsing', 'ocr', 'chunking', 'embedding']).nullable(),
  /** How far the stage has got (pages or chunks); null when the stage has no count. */
  progress: z.object({ done: z.number().int(), total: z.number().int(), unit: z.enum(['pages', 'chunks']) }).nullable(),
  /**
   * What the document is about, read from the document itself at ingestion; null before it was
   * (re-)ingested. Only what a person checks: the running headers and cover lines the ingester
   * keeps as searchable context are internal (they are in the chunks' context, not the API).
   */
  identity: z
    .object({
      subject: z.string().nullable().describe('The issuer, organisation or thing the document is about'),
      kind: z.string().nullable().describe('Kind of document ("Form 10-K", "Employee Handbook")'),
      period: z.string().nullable().describe('Period it covers, as written'),
      source: z
        .enum(['caption', 'cover', 'running', 'title', 'filename'])
        .nullable()
        .describe('Where the subject was read: a caption naming it, the cover, the running header or footer, the metadata title, or the file name'),
      confidence: z
        .enum(['high', 'low'])
        .describe('high: a line the document names itself by (a caption, a cover line its body repeats, a metadata title); low: a guess (a running header, an unrepeated cover line, the file name), not shown as the subject in the dashboard'),
    })
    .nullable(),
  /** Pages whose text was read by OCR (scans); empty when the text came from the file itself. */
  ocr_pages: z.array(z.number().int()),
  warnings: z
    .array(z.object({ code: z.enum(['ocr_unsure', 'ocr_unreadable']), message: z.string(), pages: z.array(z.number().int()) }))
    .describe('What to check on a ready document: pages OCR was unsure of (their text may be wrong) or could not read (left out). Empty when nothing is in doubt'),
  language: z
    .string()
    .nullable()
    .describe('The language of its text, detected at ingestion (ISO 639-1 where there is a code: "en", "zh"); its passages are searched with that language\'s word rules. Null before it was (re-)ingested, or when there is too little text to tell'),
  enabled: z.boolean().describe('false: switched off, kept and listed but never retrieved (PATCH the document with {"enabled": true} to switch it on)'),
  /** URL documents: re-crawl schedule, when the last crawl ran, what it changed, when the next runs. */
  recrawl: z.enum(['daily', 'weekly']).nullable(),
  last_crawled_at: z.string().nullable(),
  next_crawl_at: z.string().nullable(),
  last_crawl_changes: z.object({ added: z.number().int(), changed: z.number().int(), removed: z.number().int(), unchanged: z.number().int() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DocumentDto = z.infer<typeof ZDocument>;

export function toDocumentDto(d: DocumentRow): DocumentDto {
  return {
    id: d.id,
    kb_id: d.kb_id,
    filename: d.filename,
    source: d.source,
    content_type: d.content_type,
    status: d.status,
    chunk_count: d.chunk_count,
    error: d.error,
    size_bytes: d.size_bytes,
    pages: d.pages,
    stage: d.stage,
    progress:
      d.stage !== null && d.progress_total !== null && d.progress_unit !== null
        ? { done: d.progress_done ?? 0, total: d.progress_total, unit: d.progress_unit }
        : null,
    identity: d.identity
      ? { subject: d.identity.subject, kind: d.identity.kind, period: d.identity.period, source: d.identity.source, confidence: d.identity.confidence ?? confidenceOf(d.identity.source) }
      : null,
    ocr_pages: d.ocr_pages ?? [],
    warnings: (typeof d.warnings === 'string' ? JSON.parse(d.warnings) : d.warnings) ?? [],
    language: d.language ?? null,
    enabled: d.enabled ?? true,
    recrawl: d.recrawl ?? null,
    last_crawled_at: d.last_crawled_at?.toISOString() ?? null,
    next_crawl_at: d.next_crawl_at?.toISOString() ?? null,
    last_crawl_changes: d.last_crawl_changes ?? null,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

/** An identity read before confidence was recorded is as sure as the place its subject came from. */
function confidenceOf(source: DocumentIdentity['source']): 'high' | 'low' {
  return source === 'caption' || source === 'cover' || source === 'title' ? 'high' : 'low';
}
