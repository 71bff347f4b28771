/**
 * FinanceBench's open-source sample (../shared/data/financebench: 41 filings of 15 companies, 68
 * analyst questions with evidence pages), read at bench time only: the data is CC BY-NC and never
 * enters the repository. Used by bench/reports.ts.
 *
 * Companies are split into a tuning half and a held-out half by a hash of the company's name
 * (deterministic, and blind to what the filings say), so that what is tuned on one half is checked
 * on the other.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type FinanceQuestion = {
  id: string;
  company: string;
  docName: string;
  question: string;
  answer: string;
  /** 1-based pages of the filing that hold the evidence (the dataset counts from 0). */
  evidencePages: number[];
  half: 'tuning' | 'held-out';
};

export type FinanceFile = { docName: string; company: string; filename: string; bytes: Buffer };

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

/** Companies ordered by the SHA-1 of their name, alternately tuning and held-out: balanced, and blind to content. */
export function financeHalves(companies: string[]): Map<string, 'tuning' | 'held-out'> {
  const order = [...new Set(companies)].sort((a, b) => (sha1(a.toLowerCase()) < sha1(b.toLowerCase()) ? -1 : 1));
  return new Map(order.map((c, i) => [c, i % 2 === 0 ? 'tuning' : 'held-out']));
}

type RawQuestion = {
  financebench_id: string;
  company: string;
  doc_name: string;
  question: string;
  answer: string;
  evidence: Array<{ doc_name: string; evidence_page_num: number }>;
};

const jsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

export function loadFinanceBench(dir: string, opts: { naming: 'real' | 'opaque'; companies?: Set<string> }) {
  const docs = jsonl<{ doc_name: string; company: string }>(path.join(dir, 'documents.jsonl'));
  const companyOf = new Map(docs.map((d) => [d.doc_name, d.company]));
  const wanted = (company: string) => !opts.companies || opts.companies.has(company.toLowerCase());
  const files: FinanceFile[] = readdirSync(path.join(dir, 'pdfs'))
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((f) => {
      const docName = f.replace(/\.pdf$/, '');
      const bytes = readFileSync(path.join(dir, 'pdfs', f));
      // Opaque: what a filing saved from an index is often called; the name tells nothing.
      const filename = opts.naming === 'real' ? f : `${createHash('sha1').update(bytes).digest('hex')}.pdf`;
      return { docName, company: companyOf.get(docName) ?? '', filename, bytes };
    })
    .filter((f) => wanted(f.company));
  const halves = financeHalves(docs.map((d) => d.company));
  const questions: FinanceQuestion[] = jsonl<RawQuestion>(path.join(dir, 'qna.jsonl'))
    .filter((q) => wanted(q.company))
    .map((q) => ({
      id: q.financebench_id,
      company: q.company,
      docName: q.doc_name,
      question: q.question,
      answer: q.answer,
      evidencePages: q.evidence.filter((e) => e.doc_name === q.doc_name).map((e) => e.evidence_page_num + 1),
      half: halves.get(q.company) ?? 'held-out',
    }));
  return { files, questions };
}

/**
 * The figures of a gold answer: its numbers, years aside ("$1577.00" -> 1577, "8.70" -> 8.7,
 * "-0.9%" -> 0.9). Signs are dropped: answers write a decline as "decreased by 0.9%".
 */
export function goldFigures(answer: string): number[] {
  return numbersIn(answer).filter((n) => !(Number.isInteger(n) && n >= 1900 && n <= 2100));
}

function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/\d[\d,]*(?:\.\d+)?|\.\d+/g)) {
    const raw = m[0].replace(/,(?=\d{3}\b)/g, '').replace(/,/g, '');
    const n = Number(raw);
    if (Number.isFinite(n)) out.push(Math.abs(n));
  }
  return out;
}

/**
 * Whether `answer` states one of `gold`'s figures: equal within 1% (the gold is often rounded:
 * "$8.70" billion for 8,738 million), at the same scale or a thousand times apart (millions
 * against billions or thousands), as a filing and an analyst write the same amount.
 */
export function containsFigure(answer: string, gold: number[]): boolean {
  const said = numbersIn(answer);
  return gold.some((g) =>
    said.some((s) => [1, 1000, 0.001].some((scale) => {
      const v = s * scale;
      return g === 0 ? v === 0 : Math.abs(v - g) <= 0.01 * Math.abs(g);
    })),
  );
}
