/**
 * Document context: a question that names what only a document's title holds (the period of a
 * quarterly report, here only in the file name) finds that document's passages first, although
 * every report says the same things in the same words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentTitle, titleFromFilename } from '../../src/ingest/document-title';
import { titleBoosts } from '../../src/answering/retrieval/title-boost';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { analyseQuestion } from '../../src/answering/analyse-question';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const report = (revenue: number, growth: number) =>
  `Good afternoon and welcome to the earnings call.\n\nProduct revenue was $${revenue} million, up ${growth}% year over year. ` +
  `Remaining performance obligations grew as customers signed larger contracts.\n\nWe continue to invest in sales capacity.`;

describe('document titles', () => {
  it('come from the parser, else from a file name that reads like a title', () => {
    expect(titleFromFilename('Q2 2022 Acme Inc. Earnings Call.pdf')).toBe('Q2 2022 Acme Inc. Earnings Call');
    expect(titleFromFilename('squad-123.txt')).toBeUndefined();
    expect(titleFromFilename('IMG_2034.pdf')).toBeUndefined();
    expect(documentTitle('Acme Inc. Earnings Call', { filename: 'Q2 2022 Acme Inc. Earnings Call.pdf', source: 'upload' })).toBe(
      'Acme Inc. Earnings Call (Q2 2022 Acme Inc. Earnings Call)',
    );
    expect(documentTitle('Employee Handbook', { filename: 'employee_handbook.docx', source: 'upload' })).toBe('Employee Handbook');
    expect(documentTitle(undefined, { filename: 'https://example.com/', source: 'url' })).toBeNull();
  });

  it('boost only what tells the candidates apart', () => {
    const titles = ['Q1 2022 Acme Call', 'Q2 2022 Acme Call', 'Q2 2023 Acme Call', null];
    const b = titleBoosts(analyseQuestion('What was product revenue in Q2 2022 at Acme?'), titles);
    expect(b[1]).toBeGreaterThan(b[0]!);
    expect(b[1]).toBeGreaterThan(b[2]!);
    expect(b[3]).toBe(0);
    expect(titleBoosts(analyseQuestion('What was product revenue at Acme?'), titles).every((x) => x === 0)).toBe(true);
  });

  it('match periods as periods, not as the words "Q4" and "2021"', () => {
    const titles = ['Q4 2022 Acme Call', 'Q1 2022 Acme Call', 'Q3 2021 Acme Call', 'Q3 FY23 Acme Call', 'Acme Annual Report 2023'];
    const best = (query: string) => {
      const b = titleBoosts(analyseQuestion(query), titles);
      return titles.filter((_, i) => b[i] === Math.max(...b));
    };
    expect(best('For customers landed in Q4 2021, what did they add to revenue in Q1 2022?')).toEqual(['Q1 2022 Acme Call']);
    expect(best('How much did revenue grow in the third quarter of fiscal 2023?')).toEqual(['Q3 FY23 Acme Call']);
    expect(best('What did Acme say in the Q3 2021 call?')).toEqual(['Q3 2021 Acme Call']);
    // A year names all of its reports; the annual report covers a quarter of its year only in part.
    const inYear = titleBoosts(analyseQuestion('What changed in fiscal 2023?'), titles);
    expect(inYear[3]).toBe(inYear[4]);
    const q2 = titleBoosts(analyseQuestion('What changed in Q2 2023?'), titles);
    expect(q2[4]).toBeGreaterThan(q2[3]!);
    expect(q2[3]).toBe(q2[0]);
    // An outlook for a year is given in the last report of the year before, and updated in the year's own.
    const outlook = titleBoosts(analyseQuestion('What operating margin did Acme expect for the full year 2023?'), titles);
    expect(outlook[0]).toBe(Math.max(...outlook));
    expect(outlook[0]).toBe(outlook[3]);
    expect(outlook[1]).toBe(0);
    expect(titleBoosts(analyseQuestion('What were Acme’s expectations for margins as of Q3 2023?'), titles)[0]).toBe(0);
    // Relative to the latest report among the candidates.
    expect(best('How fast is revenue growing in the most recent quarter?')).toEqual(['Q3 FY23 Acme Call']);
    expect(best("What were margins in last year's fourth quarter?")).toEqual(['Q4 2022 Acme Call']);
  });

  it("takes a document's stated period over the dates of its title, which may be when it was filed", () => {
    const titles = ['Form 10-K for Acme filed 02/09/2023 · fiscal year ended December 31, 2022', 'Form 8-K for Acme filed 05/30/2023', 'Form 10-K for Acme filed 02/11/2022'];
    const periods = ['fiscal year ended December 31, 2022 (fiscal year 2022)', '2023', 'fiscal year ended December 25, 2021 (fiscal year 2021)'];
    const question = 'By how much did Acme increase its credit facility on May 26, 2023?';
    const stated = titleBoosts(analyseQuestion(question), titles, { periods });
    expect(stated[1]).toBe(Math.max(...stated));
    expect(stated[1]).toBeGreaterThan(stated[0]!);
    // Without the stated periods, the filing date makes the 2022 report one of 2023 too.
    const written = titleBoosts(analyseQuestion(question), titles);
    expect(written[0]).toBe(written[1]);
    const fy2021 = titleBoosts(analyseQuestion('What was revenue in fiscal 2021?'), titles, { periods });
    expect(fy2021[2]).toBe(Math.max(...fy2021));
    expect(fy2021[2]).toBeGreaterThan(fy2021[1]!);
  });

  it('a period counts for the documents whose subject the question names, not for every document of that period', () => {
    const titles = ['Acme Corp Annual Report 2018', 'Acme Corp Annual Report 2022', 'Globex Inc Annual Report 2018'];
    const b = titleBoosts(analyseQuestion("What was Acme's capital expenditure in FY2018?"), titles);
    expect(b[0]).toBe(Math.max(...b));
    // Another company's report of the asked year is no better than the named company's report of another year.
    expect(b[2]).toBeLessThan(b[1]!);
    // With no subject named, the period alone decides.
    const p = titleBoosts(analyseQuestion('What was capital expenditure in FY2018?'), titles);
    expect(p[0]).toBe(p[2]);
    expect(p[0]).toBeGreaterThan(p[1]!);
  });

  it('do not take a line printed on most covers for a name, though ingestion read one as a subject', () => {
    // The first filing's subject was read from its cover's agency line; the others print it as a headline.
    const kb = ['UNITED STATES · Form 10-K · fiscal year 2022', 'Globex Inc · Form 10-K · fiscal year 2022', 'Initech Corp · Form 10-K · fiscal year 2022', 'Hooli Inc · Form 10-K · fiscal year 2022'];
    const cover = [null, 'UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION', 'UNITED STATES', 'UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION'];
    // Written all in lower case, so that only the covers can tell the name from the ordinary word.
    const q = "what restructuring costs are in globex's income statement for fy2022? if none are outlined then state 0.";
    const withCovers = titleBoosts(analyseQuestion(q), kb, { universe: kb, cover });
    expect(withCovers[1]).toBe(Math.max(...withCovers));
    expect(withCovers[0]).toBeLessThan(withCovers[1]!);
    // Without the covers, "state" is as rare among the subjects as the company's name.
    const without = titleBoosts(analyseQuestion(q), kb, { universe: kb });
    expect(without[0]).toBeGreaterThanOrEqual(without[1]!);
  });

  it('count a title word the question writes as a name above ordinary words a title happens to share', () => {
    const kb = ['Acme Company · Annual Report · 2022', 'Globex Holdings · Annual Report · 2022', 'Initech Group · Annual Report · 2022', 'Hooli Group · Annual Report · 2022'];
    const q = 'Has Globex improved its margin? If margin is not useful for a company like this, say so.';
    const b = titleBoosts(analyseQuestion(q), kb, { universe: kb });
    expect(b[1]).toBe(Math.max(...b));
    expect(b[0]).toBeLessThan(b[1]!);
    // In lower case the question names nothing as a name: the rarer title word decides, as before.
    const lower = titleBoosts(analyseQuestion(q.toLowerCase()), kb, { universe: kb });
    expect(lower[0]).toBe(lower[1]);
  });

  it('read a name written short: the first letters of a word, or the initials of its words', () => {
    const kb = ['Northwind Traders Inc · Form 10-Q · 2022', 'Globex Holdings · Form 10-Q · 2022', 'Blue Ridge Water Works · Form 10-K · 2022'];
    const byAbbreviation = (q: string) => kb.filter((_, i, all) => titleBoosts(analyseQuestion(q), all, { universe: all })[i] === 1);
    expect(byAbbreviation("Which of NWT's segments earned most?")).toEqual([]);
    expect(byAbbreviation("Which of NORTHW's segments earned most?")).toEqual([kb[0]]);
    expect(byAbbreviation('What did BRWW spend on pipes?')).toEqual([kb[2]]);
    // Mixed case, digits and short capitals are not read as names.
    expect(byAbbreviation('What was the VaR of Q2?')).toEqual([]);
    expect(byAbbreviation('Did GL grow?')).toEqual([]);
  });

  it("count a word's specificity over every document of the KB, not only over the candidates", () => {
    // Most covers of the KB carry the same agency line; the question names it and the company.
    const kb = ['Globex Inc Securities Commission Form 10-K', 'Initech Securities Commission Form 10-K', 'Hooli Securities Commission Form 10-K', 'Umbrella Securities Commission Form 10-K', 'Acme Corp Annual Report'];
    const candidates = [kb[0]!, kb[4]!];
    const q = "What was Acme's revenue in its Securities Commission filing?";
    const overKb = titleBoosts(analyseQuestion(q), candidates, { universe: kb });
    expect(overKb[1]).toBeGreaterThan(overKb[0]!);
    // Among the two candidates alone the agency line looked as specific as the name, twice over.
    const overCandidates = titleBoosts(analyseQuestion(q), candidates);
    expect(overCandidates[0]).toBeGreaterThan(overCandidates[1]!);
  });

  it('find the report of the period a question names, though only its file name holds it', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const kbId = (await api.post('/api/kbs', { name: 'Reports' })).body.kb.id;
    const periods = [
      ['Q1 2022', 101, 20],
      ['Q2 2022', 202, 30],
      ['Q3 2022', 303, 40],
      ['Q1 2023', 404, 50],
      ['Q2 2023', 505, 60],
    ] as const;
    for (const [period, revenue, growth] of periods) {
      await uploadFile(t.app, api_key, kbId, { name: `${period} Acme Inc. Earnings Call.txt`, bytes: report(revenue, growth) });
    }
    await runQueuedJobs(t);
    const docs = await t.db.selectFrom('documents').select(['filename', 'title']).where('kb_id', '=', kbId).execute();
    expect(docs.every((d) => d.title === d.filename.replace(/\.txt$/, ''))).toBe(true);

    for (const [period, revenue] of periods) {
      const res = await api.post('/api/rag/search', { kb_id: kbId, query: `What was product revenue in ${period}?` });
      expect(res.status).toBe(200);
      expect(res.body.citations[0].filename).toBe(`${period} Acme Inc. Earnings Call.txt`);
      expect(res.body.answer).toContain(`$${revenue} million`);
      // The title is indexed, not shown.
      expect(res.body.citations[0].snippet).not.toContain(period);
    }
  });
});
