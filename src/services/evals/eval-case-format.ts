/**
 * The two file formats of a test set, read and written the same way by import, export and the CLI:
 *   - JSONL, one case a line: {"question": "…", "answer": "…"?, "documents": ["file name", …]?,
 *     "pages": [3, …]?, "answerable": true|false?};
 *   - CSV with a header row naming the columns question, answer, documents, pages, answerable (any
 *     order, only question required); several documents or pages in one cell are separated by "|";
 *     answerable reads true/false, yes/no or 1/0, and an empty cell means true.
 * A problem names its line, so a file of hundreds of cases is fixed where it is wrong.
 */
import { z } from 'zod';
import { AppError } from '../../errors';
import { describeIssue } from '../../validation';
import { ZEvalCaseFields } from './eval-dto';

export const EVAL_FILE_FORMATS = ['jsonl', 'csv'] as const;
export type EvalFileFormat = (typeof EVAL_FILE_FORMATS)[number];
export type EvalCaseLine = z.output<typeof ZEvalCaseFields>;

const ZLine = ZEvalCaseFields.strict();

const lineError = (line: number, message: string) => new AppError('invalid_input', `line ${line}: ${message}`, { field: 'content', line });

function validate(line: number, value: unknown): EvalCaseLine {
  const parsed = ZLine.safeParse(value);
  if (!parsed.success) throw lineError(line, describeIssue(parsed.error.issues[0]!).message);
  return parsed.data;
}

export function parseJsonl(content: string): EvalCaseLine[] {
  const cases: EvalCaseLine[] = [];
  for (const [i, text] of content.split(/\r?\n/).entries()) {
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw lineError(i + 1, 'not a JSON object');
    }
    cases.push(validate(i + 1, value));
  }
  return cases;
}

/** RFC 4180 records: quoted fields may hold commas, quotes ("") and line breaks. Each record keeps the line it starts on. */
function csvRecords(content: string): Array<{ line: number; fields: string[] }> {
  const records: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const text = content.replace(/^\uFEFF/, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (fields.some((f) => f.trim() !== '')) records.push({ line: start, fields });
      fields = [];
      field = '';
      line++;
      start = line;
    } else field += c;
  }
  if (quoted) throw lineError(start, 'a quoted field is not closed');
  fields.push(field);
  if (fields.some((f) => f.trim() !== '')) records.push({ line: start, fields });
  return records;
}

const CSV_COLUMNS = ['question', 'answer', 'documents', 'pages', 'answerable'] as const;
const list = (cell: string) => cell.split('|').map((s) => s.trim()).filter(Boolean);

export function parseCsv(content: string): EvalCaseLine[] {
  const [header, ...rows] = csvRecords(content);
  if (!header) return [];
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const unknown = names.find((n) => !(CSV_COLUMNS as readonly string[]).includes(n));
  if (unknown !== undefined) throw lineError(header.line, `unknown column "${unknown}" (columns: ${CSV_COLUMNS.join(', ')})`);
  if (!names.includes('question')) throw lineError(header.line, 'the header row names no "question" column');
  return rows.map(({ line, fields }) => {
    const cell = (name: (typeof CSV_COLUMNS)[number]) => {
      const i = names.indexOf(name);
      return i === -1 ? '' : (fields[i] ?? '').trim();
    };
    const answerable = cell('answerable').toLowerCase();
    if (answerable && !['true', 'false', 'yes', 'no', '1', '0'].includes(answerable)) throw lineError(line, '"answerable" must be true or false');
    const pages = list(cell('pages')).map(Number);
    return validate(line, {
      question: cell('question'),
      ...(cell('answer') ? { answer: cell('answer') } : {}),
      ...(cell('documents') ? { documents: list(cell('documents')) } : {}),
      ...(pages.length ? { pages } : {}),
      ...(answerable ? { answerable: ['true', 'yes', '1'].includes(answerable) } : {}),
    });
  });
}

export function parseEvalCases(format: EvalFileFormat, content: string): EvalCaseLine[] {
  return format === 'csv' ? parseCsv(content) : parseJsonl(content);
}

/** The case as a JSONL line: only the fields it sets, `answerable` only when false. */
export function caseLine(c: { question: string; answer: string | null; documents: string[]; pages: number[]; answerable: boolean }): Record<string, unknown> {
  return {
    question: c.question,
    ...(c.answer !== null ? { answer: c.answer } : {}),
    ...(c.documents.length ? { documents: c.documents } : {}),
    ...(c.pages.length ? { pages: c.pages } : {}),
    ...(c.answerable ? {} : { answerable: false }),
  };
}

const csvCell = (s: string) => (/[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s);

export function printEvalCases(
  format: EvalFileFormat,
  cases: Array<{ question: string; answer: string | null; documents: string[]; pages: number[]; answerable: boolean }>,
): string {
  if (format === 'jsonl') return cases.map((c) => `${JSON.stringify(caseLine(c))}\n`).join('');
  const rows = cases.map((c) => [c.question, c.answer ?? '', c.documents.join('|'), c.pages.join('|'), String(c.answerable)].map(csvCell).join(','));
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}
