/**
 * A file name read as a title. Both a document's title (document-title.ts) and its identity
 * (document-identity.ts) fall back to it, so it sits below both.
 */
import { collapseWhitespace } from './normalize';

/** A file name's stem as words, when it has at least two words of three letters or more. */
export function titleFromFilename(filename: string): string | undefined {
  const stem = filename.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  const words = collapseWhitespace(stem.replace(/_+/g, ' ').replace(/(?<=\p{L})-(?=\p{L})/gu, ' '));
  const letters = words.match(/\p{L}{3,}/gu) ?? [];
  return letters.length >= 2 ? words : undefined;
}
