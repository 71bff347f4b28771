/**
 * Table rows as answer units. A table reaches the answerer as lines: a PDF's rows as "label
 * number number ..." under a header line naming the periods ("Years ended December 31, 2022 2021
 * 2020"), a Markdown/DOCX/HTML table's as "Header: value | Header: value" (src/ingest/tables.ts).
 * Without punctuation between them the sentence splitter joins every line of a table into one
 * "sentence", so a figure question was answered by quoting the whole table. Here each row becomes
 * its own unit, and a PDF row keeps the header line above it, so the answer can say which column
 * (period) each number belongs to.
 *
 * Nothing here knows a domain: a row is a label followed by two or more numeric cells, a header is a
 * line naming two or more periods and no other number.
 */
import { findPeriods, withoutPeriods } from './periods';

// A numeric cell: 1,234 · (1,234) · $31 · ($743) · 14.7 % · (0.6)% · — (a dash for nil).
const CELL = /(?:\(?[$€£¥]?\s?\(?-?\d[\d,]*(?:\.\d+)?\)?\s?%?\)?|[—–-])$/u;
const YEAR = /^\(?(?:19|20)\d{2}\)?$/;

/** The numeric cells ending a line, first to last, and the label before them. */
export function rowCells(line: string): { label: string; cells: string[] } {
  let rest = line.trimEnd();
  const cells: string[] = [];
  for (;;) {
    const m = CELL.exec(rest);
    if (!m || m[0].trim() === '') break;
    const before = rest.slice(0, m.index + m[0].length - m[0].trimStart().length);
    // A cell stands alone: "CARES Act (5)" yes, "Form 10-K" or "Q3" no.
    if (before !== '' && !/\s$/.test(before)) break;
    cells.unshift(m[0].trim());
    rest = before.trimEnd();
  }
  return { label: rest, cells };
}

/** "Valuation allowance 1,199 (23.9) 512 (10.2)" or "Item: Capex | FY2018: 15,870": a label and figures. */
export function isTableRow(line: string): boolean {
  const t = line.trim();
  if (isPeriodHeader(t)) return false;
  if (t.includes(' | ')) return /\d/.test(withoutPeriods(t, findPeriods(t, { lenient: true }))) && /\p{L}/u.test(t);
  const { label, cells } = rowCells(t);
  // At least two cells, one of them not a bare year (a wrapped prose line can end "... 2021 2020").
  return cells.length >= 2 && /\p{L}/u.test(label) && cells.some((c) => !YEAR.test(c) && /\d/.test(c)) && !/[.:;]$/.test(label);
}

/** A line naming two or more periods and no other number: a table's column header. */
export function isPeriodHeader(line: string): boolean {
  const periods = findPeriods(line, { lenient: true });
  if (periods.length < 2) return false;
  return !/\d/.test(withoutPeriods(line, periods).replace(/\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},?/gi, ' '));
}

/**
 * The units of one splitter sentence: its table rows and header lines each alone, the other lines
 * joined back into prose. A sentence with no table line is returned whole.
 */
export function splitTableLines(text: string): string[] {
  if (!text.includes('\n')) return [text];
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  if (!lines.some((l) => isTableRow(l))) return [text];
  const out: string[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (prose.length > 0) out.push(prose.join(' '));
    prose = [];
  };
  for (const line of lines) {
    if (isTableRow(line) || isPeriodHeader(line)) {
      flush();
      out.push(line);
    } else prose.push(line);
  }
  flush();
  return out;
}

/**
 * A PDF row with the column headers of its table: "Income tax expense/(benefit): 2022 $31 (0.6)%;
 * 2021 ($743) 14.7 %" when the cells divide evenly among the header's periods, else the row followed
 * by its header in parentheses. A row that already labels its cells ("FY2018: 15,870") is kept.
 */
export function labelRow(row: string, header: string | undefined): string {
  if (!header || row.includes(' | ')) return row;
  const { label, cells } = rowCells(row);
  const periods = findPeriods(header, { lenient: true });
  if (periods.length >= 2 && cells.length % periods.length === 0) {
    const per = cells.length / periods.length;
    const columns = periods.map((p, i) => `${header.slice(p.start, p.end)} ${cells.slice(i * per, (i + 1) * per).join(' ')}`);
    return `${label.replace(/[\s:]+$/, '')}: ${columns.join('; ')}`;
  }
  return `${row} (${header})`;
}
