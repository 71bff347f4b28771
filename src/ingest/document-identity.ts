/**
 * What a document is about, read from what it says about itself: its subject (the issuer, the
 * organisation or thing it concerns), its kind and its period. Passages rarely repeat these (page 40
 * of an annual report says "net sales increased 4%", not whose), so the identity is indexed with
 * every chunk (embed-chunks.ts) and compared with what a question names (title-boost.ts).
 *
 * Read, in order of trust, from:
 *   - the opening (cover page / first heading): a name labelled by a caption such as
 *     "(Exact name of registrant as specified in its charter)" or "(the Company)", else the most
 *     prominent lines (largest type on the cover; headings for formats without sizes), of which the
 *     subject is the one the body repeats most (an issuer names itself throughout; the agency or
 *     publisher a cover also shows, rarely);
 *   - the running headers and footers (parse-pdf.ts keeps their text for this);
 *   - the metadata title, when it is words (parse-pdf/normalize's usableTitle: not an accession
 *     number, not "Microsoft Word - x.docx", not blank);
 *   - the file name, last, when it reads like a title.
 * Nothing here knows any organisation's name: only the shapes of covers, captions and periods.
 */
import { findPeriods, formatPeriod } from '../text/periods';
import { titleFromFilename } from './filename-title';
import { collapseWhitespace } from './normalize';
import type { ParsedDocument } from './types';
import type { DocumentIdentity } from '../../db/json-columns';

/** Stored with the document (documents.identity), so its shape is the database's (db/json-columns.ts). */
export type { DocumentIdentity } from '../../db/json-columns';

const MAX_LINE = 90;
const MAX_RUNNING = 3;
const MAX_HEADLINE = 3;
// Size given to headings and titles of formats without font sizes (body text is 1).
const HEADING = 2;
const hasWords = (s: string) => /\p{L}{2,}/u.test(s);

// A caption naming the line above it: "(Exact name of registrant as specified in its charter)",
// "(Name of Issuer)", "(the "Company")".
const NAME_CAPTION = /^\(\s*(?:exact\s+)?name\s+of\b|^\(\s*(?:the\s+)?["“']?(?:company|issuer|registrant|employer|licensor|supplier)["”']?\s*\)/i;
// Kinds of document as covers write them; generic words, not anyone's names.
const KIND =
  /\b(?:form\s+[0-9]+-?[a-z]{0,2}\b|(?:annual|quarterly|current|interim|sustainability|financial)\s+report|earnings\s+(?:release|call|report)|press\s+release|proxy\s+statement|prospectus|(?:employee\s+)?handbook|(?:user|owner'?s?|operating|service|reference|installation)\s+(?:manual|guide)|manual|(?:\w+\s+)?agreement|contract|policy|white\s*paper|specification|minutes|transcript)\b/i;
// "for the fiscal year ended December 31, 2018", "quarterly period ended July 1, 2023".
const PERIOD_ENDED =
  /\b((?:fiscal\s+)?(?:year|quarter|quarterly\s+period|period|(?:three|six|nine|twelve)\s+months))\s+ended\s+((?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{1,2},?\s+((?:19|20)\d{2}))/i;
const BOILERPLATE = /indicate by check mark|pursuant to|washington,\s*d\.?c|^table of contents$|commission file|telephone|address of principal/i;

// A page counter says where a line is printed, not what the document is: "Page 2 of 4", "2 / 4",
// "第 2 页 共 4 页".
const PAGE_COUNTER = /\bpage\s+\d+\s*(?:of|\/)\s*\d+\b|^\s*\d+\s*(?:of|\/)\s*\d+\s*$|第\s*\d+\s*页(?:\s*[，,]?\s*共\s*\d+\s*页)?|共\s*\d+\s*页/giu;

/** A line without its page counters ("Page 2 of 4 AB12CD345" → "AB12CD345"). */
const withoutPageCounter = (line: string) => collapseWhitespace(line.replace(PAGE_COUNTER, ' '));

/**
 * A line that cannot name what a document is about: a form's field labels waiting for their values
 * (it ends with a colon, or holds two labels: "Aircraft Make: Registration:", "项目编号： 密级："),
 * or nothing but codes and numbers once page counters are gone ("AB12CD345", "2019-04").
 * A subject has a word: letters, no digits, at least two of them.
 */
export function notASubject(line: string): boolean {
  const rest = withoutPageCounter(line);
  const labelColons = rest.match(/\p{L}\)?\s*[:：]/gu)?.length ?? 0;
  if (/[:：]\s*$/.test(rest) || labelColons >= 2) return true;
  return !rest.split(/[\s·|,;/]+/).some((w) => /^[^\p{N}]*\p{L}[^\p{N}]*\p{L}[^\p{N}]*$/u.test(w));
}

/** Sizes above this share of the opening's median size are headline type. */
const PROMINENT = 1.25;

export function documentIdentity(parsed: ParsedDocument, doc: { filename: string; source: 'upload' | 'url' }): DocumentIdentity | null {
  const opening = openingLines(parsed);
  // Without a cover (no cues), only headings and the title are the document speaking of itself:
  // a plain paragraph's "agreement" or "1995" is not its kind or period.
  const lines = opening.filter((o) => parsed.cues || o.size === HEADING).map((o) => o.text);
  const label = labels(parsed);
  const running = (parsed.cues?.running ?? [])
    .map((t) => withoutPageCounter(t))
    .filter((t) => t.length <= MAX_LINE && hasWords(t) && !BOILERPLATE.test(t) && !label(t))
    .slice(0, MAX_RUNNING);
  const title = parsed.title ? collapseWhitespace(parsed.title) : undefined;
  const fromName = doc.source === 'upload' ? titleFromFilename(doc.filename) : undefined;
  const named = (l: string | undefined) => (l && !notASubject(l) ? l : undefined);

  const kindLine = [...lines, ...running, title ?? '', fromName ?? ''].find((l) => KIND.test(l));
  const kind = kindLine ? tidyKind(kindLine.match(KIND)![0]) : null;

  let subject: string | null = null;
  let source: DocumentIdentity['source'] = null;
  let confidence: NonNullable<DocumentIdentity['confidence']> = 'low';
  const captioned = captionedName(lines) ?? listedName(lines);
  if (captioned) [subject, source, confidence] = [captioned, 'caption', 'high'];
  const prominent = prominentLines(opening).filter((l) => !KIND.test(l) && !PERIOD_ENDED.test(l) && !BOILERPLATE.test(l) && !label(l) && !notASubject(l));
  if (!subject) {
    const best = mostRepeated(prominent, parsed);
    if (best) [subject, source, confidence] = [best, 'cover', 'high'];
  }
  const runningName = running.find((r) => !notASubject(r));
  if (!subject && runningName) [subject, source] = [runningName, 'running'];
  // A title that is a form's empty fields ("项目编号： 密级：") stands for the heading after it.
  const titled = named(title) ?? (title && !parsed.cues ? opening.find((o) => o.size === HEADING && o.text !== title && !notASubject(o.text))?.text : undefined);
  if (!subject && titled) [subject, source, confidence] = [titled, 'title', 'high'];
  if (!subject && named(fromName)) [subject, source] = [fromName!, 'filename'];
  // A cover line the body never repeats is as likely a section heading ("Presentation",
  // "Corporate Participants" atop a transcript) as a name: only when nothing better says whose.
  const unrepeated = prominent.find((c) => c.length <= MAX_LINE);
  if (!subject && unrepeated) [subject, source] = [unrepeated, 'cover'];

  const period = findPeriod([...lines, ...running, title ?? '', fromName ?? '']);
  const headline = prominent
    // A headline is a few words; a long prominent line is a sentence in large type.
    .filter((l) => l !== subject && l.split(/\s+/).length <= 16 && !/registrant/i.test(l))
    .slice(0, MAX_HEADLINE)
    .map((l) => (l.length > MAX_LINE ? `${l.slice(0, MAX_LINE).replace(/\s+\S*$/, '')}…` : l));
  if (!subject && !kind && !period && running.length === 0 && headline.length === 0) return null;
  return { subject: subject ? trimName(subject) : null, kind, period, headline, running, source, confidence: subject ? confidence : 'low' };
}

/**
 * The identity as the words indexed with every chunk: subject, kind, period (with the year also
 * as "fiscal year 2018" when the cover says "year ended December 31, 2018", as questions put it),
 * and the running headers.
 */
export function identityContext(identity: DocumentIdentity | null | undefined, opts: { besides?: string | null } = {}): string {
  if (!identity) return '';
  // Only what the title does not already say: the same words twice would count twice in BM25
  // and pull every vector of the document toward them (measured: earnings calls, whose titles
  // already name call and period, lost 3 of 53 right-first answers when cover lines were added).
  const said = new Set((opts.besides ?? '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const adds = (part: string) => (part.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => !said.has(w));
  // The running header is context only when it is what names the subject.
  // A title that names the same period already says which: the identity's period, often read from
  // that very title and re-written ("Q3 FY23" as "Q3 2023"), would only blur it (measured: the
  // "Q3 FY23" release then took two "Q3 2023" questions from another company's Q3 2023 call). A
  // title naming another period (a filing date, "filed 02/09/2023") does not say the period covered.
  const titlePeriods = opts.besides ? findPeriods(opts.besides, { lenient: true }) : [];
  const own = identity.period ? findPeriods(identity.period, { lenient: true }) : [];
  const sameAsTitle = own.length > 0 && own.every((p) => titlePeriods.some((t) => t.year === p.year && t.quarter === p.quarter));
  const parts = [identity.subject, identity.kind, sameAsTitle ? null : identity.period, ...(identity.source === 'running' ? identity.running.slice(1) : [])];
  return parts.filter((p): p is string => !!p && adds(p)).join(' · ');
}

function openingLines(parsed: ParsedDocument): Array<{ text: string; size?: number }> {
  const given = parsed.cues?.opening;
  if (given && given.length > 0) {
    return given.flatMap((o) => o.text.split('\n').map((t) => ({ text: collapseWhitespace(t), size: o.size }))).filter((o) => o.text);
  }
  // Formats without a cover (DOCX, Markdown, text, HTML): the first headings and paragraphs; a
  // heading counts as headline type.
  const out: Array<{ text: string; size?: number }> = [];
  const seen = new Set<string>();
  for (const s of parsed.sections.slice(0, 12)) {
    for (const h of s.headingPath) {
      if (!seen.has(h)) out.push({ text: collapseWhitespace(h), size: HEADING });
      seen.add(h);
    }
    out.push({ text: collapseWhitespace(s.text.split('\n')[0] ?? ''), size: 1 });
  }
  if (parsed.title) out.unshift({ text: collapseWhitespace(parsed.title), size: HEADING });
  return out.filter((o) => o.text);
}

function captionedName(lines: string[]): string | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Caption on the same line: `GLOBEX PLC (Exact name of registrant ...)`.
    const paren = line.indexOf('(');
    if (paren > 1 && NAME_CAPTION.test(line.slice(paren))) {
      const name = line.slice(0, paren).trim();
      if (usableName(name)) return name;
    }
    if (i > 0 && NAME_CAPTION.test(line)) {
      const above = lines[i - 1]!;
      if (usableName(above)) return above;
    }
  }
  return null;
}

// A listed issuer as a press release introduces itself: "Initech, Inc. (NASDAQ: INIT)", "Globex plc
// (NYSE: GLBX; ASX: GLB)": a name, then a market and a symbol in parentheses. The name is the run of
// capitalised words (and legal-form words) right before the parenthesis.
const LISTING = /\(\s*\p{Lu}[\p{L}]{1,9}(?:\s+\p{Lu}[\p{L}]+)?\s*:\s*\p{Lu}[\p{Lu}\p{N}.]{0,7}(?:\s*[;,]\s*\p{Lu}[\p{L}]{1,9}\s*:\s*\p{Lu}[\p{Lu}\p{N}.]{0,7})*\s*\)/u;
const NAME_WORD = /^(?:\p{Lu}[\p{L}\p{N}&'’.-]*,?|&|and|of|plc|inc\.?|ltd\.?|llc|corp\.?|co\.?|n\.v\.|s\.a\.|ag|se|lp|l\.p\.)$/u;
const MAX_NAME_WORDS = 6;

function listedName(lines: string[]): string | null {
  for (const line of lines) {
    const m = LISTING.exec(line);
    if (!m) continue;
    const words = line.slice(0, m.index).trim().split(/\s+/);
    const name: string[] = [];
    while (words.length > 0 && name.length < MAX_NAME_WORDS && NAME_WORD.test(words[words.length - 1]!)) name.unshift(words.pop()!);
    // A name starts with a capital: "and"/"of" at the front belong to the sentence before it.
    while (name.length > 0 && !/^\p{Lu}/u.test(name[0]!)) name.shift();
    const candidate = trimName(name.join(' '));
    if (usableName(candidate)) return candidate;
  }
  return null;
}

const usableName = (s: string) => s.length >= 2 && s.length <= MAX_LINE && hasWords(s) && !BOILERPLATE.test(s) && !KIND.test(s);

function prominentLines(opening: Array<{ text: string; size?: number }>): string[] {
  const sizes = opening.map((o) => o.size).filter((s): s is number => typeof s === 'number' && s > 0).sort((a, b) => a - b);
  if (sizes.length === 0) return [];
  const median = sizes[Math.floor(sizes.length / 2)]!;
  return opening
    .filter((o) => (o.size ?? 0) >= median * PROMINENT && o.text.length <= 2 * MAX_LINE && hasWords(o.text))
    .map((o) => o.text);
}

/**
 * A line the body repeats as a paragraph of its own is a label ("Operator", "Presentation"), not a
 * name: neither a subject nor a running header worth indexing.
 */
function labels(parsed: ParsedDocument): (line: string) => boolean {
  const standalone = new Map<string, number>();
  for (const s of parsed.sections.slice(0, 2000)) {
    const k = collapseWhitespace(s.text).toLowerCase();
    if (k.length <= MAX_LINE) standalone.set(k, (standalone.get(k) ?? 0) + 1);
  }
  return (line) => (standalone.get(collapseWhitespace(line).toLowerCase()) ?? 0) >= 2;
}

/** The candidate the document's body names most often (case aside), if any is named twice. */
function mostRepeated(candidates: string[], parsed: ParsedDocument): string | null {
  if (candidates.length === 0) return null;
  const body = parsed.sections
    .slice(0, 2000)
    .map((s) => s.text)
    .join('\n');
  const lower = body.toLowerCase();
  let best: string | null = null;
  let bestCount = 1;
  for (const c of candidates) {
    // A cover in capitals ("GLOBEX PLC") is written "Globex plc" in the body: case aside. A name in
    // mixed case is written the same way; "Presentation" as a heading is not the word "presentation".
    const caps = !/\p{Ll}/u.test(c);
    const key = caps ? trimName(c).toLowerCase() : trimName(c);
    const sample = caps ? lower : body;
    if (key.length < 2) continue;
    let count = 0;
    for (let at = sample.indexOf(key); at !== -1 && count < 1000; at = sample.indexOf(key, at + key.length)) count++;
    if (count > bestCount) [best, bestCount] = [c, count];
  }
  return best;
}

/** "GLOBEX PLC" stays; trailing punctuation and a leading "The" go (the body writes "Acme Company" too). */
const trimName = (s: string) => collapseWhitespace(s.replace(/^the\s+/i, '').replace(/[\s,.;:|–—-]+$/, ''));

function tidyKind(k: string): string {
  const t = collapseWhitespace(k);
  return /^form\s/i.test(t) ? `Form ${t.slice(5).toUpperCase()}` : t.toLowerCase().replace(/(?<![\p{L}'’])\p{Ll}/gu, (c) => c.toUpperCase());
}

function findPeriod(lines: string[]): string | null {
  const text = lines.join('\n');
  const ended = text.match(PERIOD_ENDED);
  if (ended) {
    const what = ended[1]!.toLowerCase();
    const year = ended[3]!;
    // Questions name the year ("FY2018", "in 2018"): said both ways.
    if (/year|twelve/.test(what)) return `${collapseWhitespace(ended[1]!)} ended ${collapseWhitespace(ended[2]!)} (fiscal year ${year})`;
    return `${collapseWhitespace(ended[1]!)} ended ${collapseWhitespace(ended[2]!)}`;
  }
  for (const line of lines) {
    const found = findPeriods(line, { lenient: true });
    if (found.length > 0) return formatPeriod(found[0]!);
  }
  return null;
}
