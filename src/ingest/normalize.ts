/**
 * Text clean-up shared by all parsers, so the same words are stored (and embedded) the same way
 * whatever format they came from.
 */

// Presentation forms (Arabic contextual glyphs, Latin ligatures such as "ﬁ") are what PDFs often
// carry; folding them makes "ﬁle" searchable as "file". Applied to these ranges only, because
// NFKC on everything would also rewrite e.g. "²" and full-width punctuation.
const PRESENTATION_FORMS = /[\uFB00-\uFDFF\uFE70-\uFEFE]+/g;
// C0/C1 controls except tab and newline, zero-width and BOM characters: they only break matching.
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\u2060\uFEFF\u00AD]/g;

/** Unicode and control-character clean-up; keeps line breaks and spacing as they are. */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(INVISIBLE, '')
    .replace(PRESENTATION_FORMS, (m) => m.normalize('NFKC'))
    .normalize('NFC');
}

/** For inline runs: any whitespace (newlines included) becomes one space. */
export function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u00A0]+/g, ' ').trim();
}

// Only what changes: a lone space is left alone, so a line of ordinary prose is not rebuilt (replacing
// every space of a 14 MB line took 1.3 s and 250 MB of heap).
const SPACE_RUN = / [ \t\u00A0]+|[\t\u00A0][ \t\u00A0]*/g;

/** For blocks: trims every line, collapses spaces inside lines, keeps at most one blank line. */
export function tidyBlock(text: string): string {
  return cleanText(text)
    .split('\n')
    .map((line) => line.replace(SPACE_RUN, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// Titles that are really file names ("report.docx", "scan0001.jpg") are what authoring tools
// leave behind when nobody set a title.
const FILENAME_LIKE = /\.(?:jpe?g|png|gif|tiff?|bmp|s?html?|docx?|rtf|pdf|pptx?|xlsx?|txt|indd|qxd|e?ps)\s*$/i;

/** `raw` as a display title, or undefined when it is empty, a file name, a number or "Untitled". */
export function usableTitle(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const title = collapseWhitespace(cleanText(raw).replace(/^Microsoft (?:Word|PowerPoint) - /, ''));
  if (!title || FILENAME_LIKE.test(title) || /^untitled\b/i.test(title)) return undefined;
  // An accession or document number ("0000320193-23-000077", "DOC-2023-0042") is not words.
  if ((title.match(/\p{L}/gu) ?? []).length < 3) return undefined;
  return title;
}
