import type { Citation } from '../../answering/citations';

/**
 * What a widget visitor sees of a source: enough to show and follow it, nothing that addresses the
 * knowledge base itself (no document or chunk ids, no scores).
 */
export type WidgetCitation = Pick<Citation, 'marker' | 'filename' | 'url' | 'page' | 'heading' | 'snippet' | 'used'> & {
  /** `annotation`: a curated answer, titled by its question. */
  source_type: 'document' | 'annotation';
  title: string | null;
};

export function toWidgetCitation(c: Citation): WidgetCitation {
  // Citations stored before `used` existed were all used by their answer.
  return {
    marker: c.marker,
    filename: c.filename,
    url: c.url,
    page: c.page,
    heading: c.heading,
    snippet: c.snippet,
    used: c.used ?? true,
    source_type: c.source_type ?? 'document',
    title: c.title ?? null,
  };
}

/** Stored messages keep citations as jsonb; read them defensively. */
export function toWidgetCitations(value: unknown): WidgetCitation[] {
  return Array.isArray(value) ? (value as Citation[]).filter((c) => c && typeof c === 'object').map(toWidgetCitation) : [];
}
