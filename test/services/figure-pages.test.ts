/**
 * Pages of figures within the chosen document (src/answering/retrieval/figure-pages.ts): a question asking
 * for an amount in a named document shows the page of figures that holds it among the top passages,
 * although prose pages repeat the question's words; the answer is made from the ranking without
 * that order, so the refusal gate and the answer do not change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectAnswer } from '../../src/answering/answer-stream';
import { documentPassages, figurePageBonuses, withinChosenDocument, asksForFigures, onePassagePerPageFirst, isIndexPage } from '../../src/answering/retrieval/figure-pages';
import { retrieve } from '../../src/answering/retrieval/retrieve';
import { startSearch } from '../../src/services/rag/search';
import { createContext } from '../../src/context';
import type { DocumentId, KbId } from '../../src/ids';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { pdfWithPages, type PdfLine } from '../ingest/pdf-fixture';
import { analyseQuestion } from '../../src/answering/analyse-question';

describe('figurePageBonuses', () => {
  const stats = { lexicalMean: 1, lexicalSd: 1, denseMean: 0.2, denseSd: 0.1 };
  const weights = { lexical: 0.8, dense: 0.2 };
  const prose = (id: string, page: number, lexical: number) => ({ id, page, position: page, lexical, dense: 0.2, figures: 1, words: 100, smallNumbers: [] });

  it('moves up the passages of a page of figures that match the question above the document mean, by the page z', () => {
    const passages = [prose('a', 1, 3), prose('b', 2, 2.5), prose('c', 3, 0.2), { ...prose('t', 4, 2), figures: 40 }];
    const out = figurePageBonuses(passages, stats, weights, 1);
    expect(out.get('a')!.bonus).toBe(0);
    expect(out.get('c')!.bonus).toBe(0);
    // Densities 0.01, 0.01, 0.01, 0.4: the table page is sqrt(3) standard deviations above the mean.
    expect(out.get('t')!.bonus).toBeCloseTo(Math.sqrt(3), 6);
    expect(out.get('a')!.fused).toBeCloseTo(0.8 * 2, 6);
  });

  it('gives nothing to a page of figures that does not match the question, nor to a document without pages', () => {
    const far = { ...prose('t', 4, 0), dense: 0, figures: 40 };
    expect(figurePageBonuses([prose('a', 1, 3), prose('b', 2, 2.5), far], stats, weights, 1).get('t')!.bonus).toBe(0);
    const unpaged = [prose('a', 1, 3), { ...far, lexical: 3 }].map((p) => ({ ...p, page: null }));
    expect([...figurePageBonuses(unpaged, stats, weights, 1).values()].every((v) => v.bonus === 0)).toBe(true);
  });

  it('gives nothing to a table of contents, whose numbers are page numbers going up, but keeps the table of figures', () => {
    const contents = [1, 1, 3, 4, 4, 7, 9, 12, 12, 15, 20, 21];
    const rows = [38, 30, 21, 145, 93, 113, 101, 44, 4, 8, 2, 19];
    // The table of contents spreads over two passages of one page, read in order.
    const passages = [
      prose('a', 1, 3),
      prose('b', 2, 2.5),
      { ...prose('toc1', 3, 3), position: 3, figures: 40, smallNumbers: contents.slice(0, 6) },
      { ...prose('toc2', 3, 3), position: 4, figures: 40, smallNumbers: contents.slice(6) },
      { ...prose('t', 4, 3), position: 5, figures: 40, smallNumbers: rows },
    ];
    const out = figurePageBonuses(passages, stats, weights, 1);
    expect(out.get('toc1')!.bonus).toBe(0);
    expect(out.get('toc2')!.bonus).toBe(0);
    expect(out.get('t')!.bonus).toBeGreaterThan(0);
  });
});

describe('isIndexPage', () => {
  it('tells page numbers going up from the rows of a table and from one number repeated', () => {
    expect(isIndexPage([1, 1, 3, 4, 4, 7, 9, 12, 12, 15, 20, 21])).toBe(true);
    expect(isIndexPage([20, 21, 21, 22, 5, 23, 24, 26, 26, 27, 30])).toBe(true);
    expect(isIndexPage([38, 30, 21, 145, 93, 113, 101, 44, 4, 8, 2, 19])).toBe(false);
    expect(isIndexPage([31, 31, 31, 26, 31, 31, 26, 31, 31])).toBe(false);
    // Too few numbers to say: a short list of sections.
    expect(isIndexPage([1, 2, 3, 4, 5])).toBe(false);
  });
});

describe('withinChosenDocument', () => {
  it('refills only the chosen document places, in the new order', () => {
    const row = (id: string, document_id: string) => ({ id, document_id });
    const top = [row('a1', 'A'), row('b1', 'B'), row('a2', 'A'), row('c1', 'C')];
    const order = [row('a9', 'A'), row('a1', 'A'), row('a2', 'A')];
    expect(withinChosenDocument(top, 'A', order).map((r) => r.id)).toEqual(['a9', 'b1', 'a1', 'c1']);
  });

  it('puts each page first passage before any page second, keeping the order otherwise', () => {
    const at = (id: string, page: number | null) => ({ id, page });
    const order = [at('a', 4), at('b', 4), at('c', 9), at('d', 4), at('e', null), at('f', null), at('g', 9), at('h', 2)];
    expect(onePassagePerPageFirst(order, (r) => r.page).map((r) => r.id)).toEqual(['a', 'c', 'e', 'f', 'h', 'b', 'd', 'g']);
  });

  it('asks for figures unless the question asks who, when, where or why', () => {
    expect(asksForFigures(analyseQuestion('What is the daily meal allowance in Zurich?'))).toBe(true);
    expect(asksForFigures(analyseQuestion('How much is the hotel limit in Oslo?'))).toBe(true);
    expect(asksForFigures(analyseQuestion('Who approves travel exceptions?'))).toBe(false);
    expect(asksForFigures(analyseQuestion('When was the travel policy last revised?'))).toBe(false);
  });
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

function policy(header: string, pages: string[][]): Buffer {
  const body = pages.map((lines, i): PdfLine[] => [
    { text: header, y: 760, size: 8 },
    ...lines.map((text, j) => ({ text, y: 700 - j * 22 })),
    { text: `Page ${i + 1}`, y: 40, size: 8 },
  ]);
  return pdfWithPages(body);
}

/** A KB of one new organisation holding these PDFs, ingested. */
async function pdfKb(name: string, files: Record<string, Buffer>) {
  const { api_key, org } = await createOrgWithKey(t.deps);
  const kbId: string = (await restClient(t.app, api_key).post('/api/kbs', { name })).body.kb.id;
  for (const [filename, bytes] of Object.entries(files)) {
    expect((await uploadFile(t.app, api_key, kbId, { name: filename, bytes, type: 'application/pdf' })).status).toBe(202);
  }
  await runQueuedJobs(t);
  const kb = await t.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId as KbId).executeTakeFirstOrThrow();
  return { kb, kbId, org };
}

describe('a question for an amount in a named document', () => {
  it('shows the page of figures among the top passages only with the figure-page order, and answers from them', async () => {
    // Prose pages repeat the question's words (Zurich included); the amounts stand only in the table.
    const prosePage = (topic: string) => [
      `Meal allowance and ${topic}.`,
      `Employees on ${topic} in Zurich or elsewhere receive a daily meal allowance for each day away.`,
      'The daily meal allowance covers breakfast, lunch and dinner and is paid with the monthly salary.',
      `A daily meal allowance is not paid when ${topic} already includes meals.`,
      'Claims for the daily meal allowance are made in the expense system within thirty days.',
    ];
    const otherPage = (topic: string, detail: string) => [`${topic}.`, detail, 'Ask your manager when in doubt.', 'Keep every receipt.'];
    const northwind = policy('Northwind Traders | Travel Policy', [
      otherPage('Booking flights', 'Flights are booked through the travel desk in economy class.'),
      prosePage('conference attendance'),
      otherPage('Rail travel', 'Trains are preferred for journeys under four hours.'),
      prosePage('hotel stays'),
      otherPage('Car rental', 'Rental cars need the approval of a manager.'),
      prosePage('client visits'),
      [
        'Allowance table',
        'Zurich 95 240 35',
        'Geneva 92 230 35',
        'Oslo 88 210 30',
        'London 80 260 30',
        'Paris 75 220 25',
        'Berlin 60 150 20',
        'Madrid 55 140 20',
        'Lisbon 50 120 15',
      ],
      otherPage('Insurance', 'Travel insurance covers medical costs abroad.'),
      prosePage('training courses'),
      otherPage('Expense reports', 'Reports are filed monthly in the expense system.'),
    ]);
    const other = policy('Fabrikam Foods | Employee Handbook', [
      ['Working hours are from nine to five.', 'Holidays are booked in the calendar.'],
      ['The canteen serves lunch every day.', 'Parking is free for employees.'],
    ]);
    const { kb, kbId, org } = await pdfKb('Policies', { 'policy-a.pdf': northwind, 'policy-b.pdf': other });
    const question = 'What is the daily meal allowance for Zurich in the Northwind Traders travel policy?';

    const off = await retrieve(t.deps, kb, question, { topK: 3, figurePageWeight: 0 });
    const on = await retrieve(t.deps, kb, question, { topK: 3 });
    const tablePage = 7;
    // Without the order, the prose pages that repeat the question's words fill the top 3.
    expect(off.chunks.map((c) => c.page)).not.toContain(tablePage);
    expect(on.chunks.map((c) => c.page)).toContain(tablePage);
    expect(on.chunks.every((c) => c.filename === 'policy-a.pdf')).toBe(true);
    // Scores stay in order down the list.
    const scores = on.chunks.map((c) => c.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // The answer reads what retrieval shows: its citations are among those passages.
    const orgRow = await t.deps.db.selectFrom('organizations').selectAll().where('id', '=', org.id).executeTakeFirstOrThrow();
    const ctx = createContext(t.deps, orgRow, { requestId: 'figure-pages' });
    const done = await collectAnswer(await startSearch(ctx, { kb_id: kbId, query: question, top_k: 3 }));
    const read = new Set(on.chunks.map((c) => c.chunk_id as string));
    for (const c of [...done.citations, ...done.closest]) expect(read.has(c.chunk_id)).toBe(true);
    for (const c of done.citations) expect(read.has(c.chunk_id)).toBe(true);
  });
});

describe('a long page that matches the question', () => {
  it('holds one of the chosen document places until every other matching page has one', async () => {
    // One page long enough for several passages, every paragraph about the allowance; two short
    // pages and the table page also answer it. A second passage of the long page tells nothing new.
    const longPage = Array.from({ length: 28 }, (_, j) =>
      j % 2 === 0
        ? `The daily meal allowance is meant for meals on working days away, rule ${j + 1} of the travel policy.`
        : `A traveller claims the daily meal allowance per day away, never twice for the same day, note ${j + 1}.`,
    );
    const doc = policy('Contoso Travel | Travel Policy', [
      ['Booking flights.', 'Flights are booked through the travel desk in economy class.'],
      longPage,
      ['Conferences.', 'On conferences the meal allowance is paid unless meals are included.'],
      ['Allowance table', 'Zurich 95 240 35', 'Geneva 92 230 35', 'Oslo 88 210 30', 'London 80 260 30', 'Paris 75 220 25'],
      ['Training.', 'During training courses the meal allowance is paid for each day away.'],
    ]);
    const other = policy('Fabrikam Foods | Employee Handbook', [['Working hours are from nine to five.'], ['The canteen serves lunch every day.']]);
    const { kb, kbId } = await pdfKb('Travel', { 'travel.pdf': doc, 'handbook.pdf': other });
    const longPassages = await t.deps.db.selectFrom('chunks').select('id').where('kb_id', '=', kbId as KbId).where('page', '=', 2).where('text', 'like', '%allowance%').execute();
    expect(longPassages.length).toBeGreaterThanOrEqual(3);

    const { chunks } = await retrieve(t.deps, kb, 'What is the daily meal allowance for Zurich in the Contoso Travel policy?', { topK: 4 });
    const pages = chunks.map((c) => c.page);
    expect(new Set(pages).size).toBe(4);
    expect(pages).toContain(4);
  });
});

describe('the small numbers of a page, read by the database', () => {
  it('reads page numbers in order, and not amounts, decimals, percentages or numbers glued to letters', async () => {
    const contents = ['Contents', 'Booking flights 1', 'Meal allowance 2', 'Hotels 4', 'Rail travel 5', 'Car rental 7', 'Insurance 8', 'Expenses 10', 'Approvals 12', 'Contacts 14'];
    const doc = policy('Contoso Travel | Travel Policy', [
      contents,
      ['Allowance table', 'Zurich 95 240 35', 'Geneva 92 230 35', 'Oslo 88 210 30', 'London 80 260 30', 'Paris 75 220 25'],
      ['Limits', 'Hotels cost at most $1,200 (or 36) a night, 46% of it refunded, per 10-K and 3M rules, 2.5 nights, 13 nights a year.'],
    ]);
    const { kbId } = await pdfKb('Contents', { 'contents.pdf': doc });
    const { id } = await t.deps.db.selectFrom('documents').select('id').where('kb_id', '=', kbId as KbId).executeTakeFirstOrThrow();
    const passages = await documentPassages(t.deps.db, kbId as KbId, id as DocumentId, null, null);
    const onPage = (page: number) => passages.filter((p) => p.page === page).sort((a, b) => a.position - b.position).flatMap((p) => p.smallNumbers);
    expect(onPage(1)).toEqual([1, 2, 4, 5, 7, 8, 10, 12, 14]);
    expect(isIndexPage(onPage(1))).toBe(true);
    expect(isIndexPage(onPage(2))).toBe(false);
    // A passage repeats the end of the one before it: the table's numbers, then this page's own.
    expect(onPage(3).at(-1)).toBe(13);
    for (const n of [1200, 200, 36, 46, 10, 3, 2, 5]) expect(onPage(3)).not.toContain(n);
  });
});

describe('a long page that matches a question not asking for figures', () => {
  it('shows each page once before any page twice, over every document', async () => {
    const longPage = Array.from({ length: 28 }, (_, j) =>
      j % 2 === 0
        ? `Travel approval is given by the line manager before booking, rule ${j + 1} of the approval policy.`
        : `The line manager records each travel approval in the approval register, note ${j + 1}.`,
    );
    const doc = policy('Contoso Travel | Approval Policy', [
      ['Booking flights.', 'Flights are booked through the travel desk once travel approval is given.'],
      longPage,
      ['Conferences.', 'Conference travel needs the approval of the line manager and of the budget holder.'],
    ]);
    const other = policy('Fabrikam Foods | Employee Handbook', [['Travel approval for drivers is given by the fleet manager.'], ['The canteen serves lunch every day.']]);
    const { kb } = await pdfKb('Approvals', { 'approval.pdf': doc, 'handbook.pdf': other });

    const question = 'Who gives travel approval?';
    expect(asksForFigures(analyseQuestion(question))).toBe(false);
    const retrieval = await retrieve(t.deps, kb, question, { topK: 4 });
    const places = retrieval.chunks.map((c) => `${c.filename}:${c.page}`);
    // Four places: the long page once, the other pages of both documents that match.
    expect(new Set(places).size).toBe(4);
    const scores = retrieval.chunks.map((c) => c.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});
