/**
 * The title a document's chunks are indexed under, so a question that names what only the title
 * holds ("in the Q2 2023 call", "Acme's handbook") finds the document's passages although no
 * passage repeats it. From the parser's title (PDF/DOCX metadata, HTML <title>, the first
 * heading), and for uploads also the file name when it reads like a title: report file names
 * often carry the period or company that the metadata lacks ("Q1 2022 Acme Earnings Call.pdf").
 */
import { identityContext, type DocumentIdentity } from './document-identity';
import { titleFromFilename } from './filename-title';
import { collapseWhitespace } from './normalize';

export { titleFromFilename };

export function documentTitle(parsedTitle: string | undefined, doc: { filename: string; source: 'upload' | 'url' }): string | null {
  const title = parsedTitle ? collapseWhitespace(parsedTitle) : undefined;
  const fromName = doc.source === 'upload' ? titleFromFilename(doc.filename) : undefined;
  if (!title) return fromName ?? null;
  if (!fromName) return title;
  // Keep the file name only when it adds words the title lacks.
  const have = new Set(title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const adds = (fromName.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => !have.has(w));
  return adds ? `${title} (${fromName})` : title;
}

/**
 * What is indexed ahead of a chunk's text (never shown in snippets): title, the document's identity
 * (document-identity.ts: whose, what kind, which period; the same on every chunk, so a passage from
 * page 40 still says it), then heading path.
 */
export function chunkContext(title: string | null | undefined, headingPath: string[], identity?: DocumentIdentity | null): string {
  const heading = headingPath.join(' > ');
  // A crawled page's title is already the first heading.
  const titled = title && headingPath[0] !== title ? title : null;
  const about = identityContext(identity, { besides: title });
  const parts = [titled, about || null, heading || null].filter(Boolean);
  return parts.join('\n');
}
