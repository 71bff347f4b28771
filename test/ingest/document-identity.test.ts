import { describe, expect, it } from 'vitest';
import { documentIdentity, identityContext, notASubject } from '../../src/ingest/document-identity';
import { chunkContext } from '../../src/ingest/document-title';
import { parseDocx } from '../../src/ingest/parse-docx';
import { parseMarkdown } from '../../src/ingest/parse-markdown';
import { parsePdf } from '../../src/ingest/parse-pdf';
import { parseTxt } from '../../src/ingest/parse-txt';
import { pdfWithPages, type PdfLine } from './pdf-fixture';
import { documentXml, makeDocx } from './zip-fixture';

const upload = (filename: string) => ({ filename, source: 'upload' as const });

/** A report body page: a running header and footer around a few paragraphs that never say whose it is. */
function bodyPage(n: number, header: string | null, text: string[]): PdfLine[] {
  return [
    ...(header ? [{ text: header, y: 760, size: 8 }] : []),
    ...text.map((t, i) => ({ text: t, y: 680 - i * 40 })),
    { text: `Page ${n}`, y: 40, size: 8 },
  ];
}

const BODY = [
  ['Net sales increased 4 percent compared with the prior year.', 'Operating margin was 12 percent.'],
  ['Capital expenditures were 310 million dollars.', 'The board declared a quarterly dividend.'],
  ['Inventories rose on higher raw material costs.', 'Freight costs declined in the quarter.'],
  ['Cash from operations was 512 million dollars.', 'Share repurchases totalled 80 million dollars.'],
  ['The effective tax rate was 21 percent.', 'Headcount was stable through the period.'],
];

describe('document identity', () => {
  it('reads the issuer and period from the running header when the metadata title is an accession number', async () => {
    const header = 'Orchard Fields Ltd. | Q3 2023 Quarterly Report';
    const cover: PdfLine[] = [
      { text: 'QUARTERLY REPORT', y: 700, size: 20 },
      { text: 'For the three months ended September 30, 2023', y: 650 },
      { text: 'This report has not been audited.', y: 600 },
    ];
    const pdf = pdfWithPages([cover, ...BODY.map((t, i) => bodyPage(i + 2, header, t))], { Title: '0000320193-23-000077' });
    const parsed = await parsePdf(pdf);
    expect(parsed.title).toBeUndefined();
    // The header is no longer deleted without a trace: it is the document's identity.
    expect(parsed.cues?.running).toContain(header);
    const identity = documentIdentity(parsed, upload('0000320193-23-000077.pdf'))!;
    expect(identity.subject).toContain('Orchard Fields Ltd.');
    expect(identity.source).toBe('running');
    // A running header is a guess at whose the document is: not shown as its subject.
    expect(identity.confidence).toBe('low');
    expect(identity.kind).toBe('Quarterly Report');
    expect(identity.period).toBe('three months ended September 30, 2023');
    // Every chunk's indexed context (page 5's too) says whose document it is.
    expect(chunkContext(null, [], identity)).toContain('Orchard Fields Ltd.');
  });

  it('reads the name a cover caption labels, with a useless or blank metadata title', async () => {
    const cover: PdfLine[] = [
      { text: 'UNITED STATES SECURITIES AND EXCHANGE COMMISSION', y: 740, size: 14 },
      { text: 'FORM 10-K', y: 700, size: 18 },
      { text: 'ANNUAL REPORT for the fiscal year ended December 31, 2022', y: 670 },
      { text: 'NORTHWIND TRADERS INC.', y: 630, size: 18 },
      { text: '(Exact name of registrant as specified in its charter)', y: 610, size: 8 },
      { text: 'Delaware', y: 580 },
    ];
    for (const title of ['Microsoft Word - final.docx', '', '   ']) {
      const parsed = await parsePdf(pdfWithPages([cover, ...BODY.map((t, i) => bodyPage(i + 2, null, t))], { Title: title }));
      expect(parsed.title).toBeUndefined();
      const identity = documentIdentity(parsed, upload('2023 Q3 NWT.pdf'))!;
      expect(identity).toMatchObject({ subject: 'NORTHWIND TRADERS INC', kind: 'Form 10-K', source: 'caption' });
      // Questions say "FY2022" or "in 2022": the period says the year as a fiscal year too.
      expect(identity.period).toContain('fiscal year 2022');
    }
  });

  it('reads a press release issuer from its market and symbol, before a metadata title that names only the exhibit', async () => {
    const cover: PdfLine[] = [
      { text: 'Orchard Fields Reports Third-Quarter 2023 Results', y: 740, size: 14 },
      { text: 'Reported Third-Quarter 2023 Results', y: 715, size: 12 },
      { text: 'SPRINGFIELD - October 24, 2023 - Orchard Fields, Inc. (NASDAQ: ORFD) today reported results for the third quarter.', y: 680 },
    ];
    const parsed = await parsePdf(pdfWithPages([cover, ...BODY.map((t, i) => bodyPage(i + 2, null, t))], { Title: 'Q3 2023 8-K - Exhibit 99.1' }));
    expect(documentIdentity(parsed, upload('ex99.pdf'))).toMatchObject({ subject: 'Orchard Fields, Inc', source: 'caption' });
    // Two markets, a legal form in lower case, and a parenthesis that lists no market.
    const release = (line: string) =>
      documentIdentity({ sections: [{ text: line, headingPath: [], page: 1 }], cues: { opening: [{ text: line, size: 10 }], running: [] } }, upload('x.pdf'));
    expect(release('ZURICH - August 15, 2023 - Northwind Packaging plc (NYSE: NWP; ASX: NWP) reports results')?.subject).toBe('Northwind Packaging plc');
    expect(release('Call the front desk (Tel: 555) for details')?.subject ?? null).toBeNull();
  });

  it('keeps a metadata title that is words, and falls back to the file name last', async () => {
    const plain = BODY.map((t, i) => bodyPage(i + 1, null, t));
    const titled = await parsePdf(pdfWithPages(plain, { Title: 'Harbour Authority Annual Report 2021' }));
    expect(titled.title).toBe('Harbour Authority Annual Report 2021');
    expect(documentIdentity(titled, upload('x.pdf'))).toMatchObject({ subject: 'Harbour Authority Annual Report 2021', source: 'title', period: '2021' });
    const untitled = await parsePdf(pdfWithPages(plain, {}));
    expect(documentIdentity(untitled, upload('Harbour Authority board minutes 2020.pdf'))).toMatchObject({ source: 'filename', kind: 'Minutes', period: '2020' });
  });

  it('reads DOCX and Markdown identities from their title and first headings', async () => {
    const docx = await parseDocx(
      makeDocx(
        documentXml([
          { text: 'Lindqvist Dental Clinics', style: 'Title' },
          { text: 'Employee Handbook 2024', style: 'Heading1' },
          { text: 'Staff accrue 25 days of paid leave per year.' },
          { text: 'Uniforms are provided by the clinic.' },
        ]),
      ),
    );
    const fromDocx = documentIdentity(docx, upload('handbook.docx'))!;
    expect(fromDocx.subject).toBe('Lindqvist Dental Clinics');
    expect(fromDocx.kind).toBe('Employee Handbook');
    expect(fromDocx.period).toBe('2024');

    const md = await parseMarkdown(Buffer.from('# Tessaract Pumps\n\n## Installation Manual, revision 2019\n\nBolt the pump to a level base.\n\n## Wiring\n\nUse a 16 A breaker.\n'));
    const fromMd = documentIdentity(md, upload('pumps.md'))!;
    expect(fromMd).toMatchObject({ subject: 'Tessaract Pumps', kind: 'Installation Manual', period: '2019' });
    expect(identityContext(fromMd)).toContain('Tessaract Pumps');
  });

  it('does not take the section headings of a transcript for its subject', async () => {
    // A cover whose largest line names the kind, then section headings in large type that the
    // body never repeats as names ("presentation" only as a word): the file name says whose.
    const cover: PdfLine[] = [
      { text: 'Q2 2024 Kestrel Looms Earnings Call', y: 740, size: 23 },
      { text: 'Edited transcript of the earnings conference call or presentation held on 2 August 2024', y: 700 },
      { text: 'Corporate Participants', y: 660, size: 17 },
      { text: 'Ada Brunner - Chief Executive Officer', y: 640 },
      { text: 'Presentation', y: 600, size: 17 },
      { text: 'Good day and welcome to the call. The presentation slides are on our website.', y: 580 },
    ];
    const pages = [cover, ...BODY.map((t, i) => bodyPage(i + 2, null, t))];
    const parsed = await parsePdf(pdfWithPages(pages, {}));
    const filename = 'Q2 2024 Kestrel Looms Earnings Call.pdf';
    const identity = documentIdentity(parsed, upload(filename))!;
    expect(identity.subject).not.toMatch(/presentation|participants/i);
    expect(identity).toMatchObject({ source: 'filename', kind: 'Earnings Call', period: 'Q2 2024' });
    // Nothing beyond what the title says is indexed with every chunk.
    expect(identityContext(identity, { besides: 'Q2 2024 Kestrel Looms Earnings Call' })).toBe('');
  });

  it('leaves out a period the title already names, and keeps one the title does not (a filing date)', () => {
    const identity = { subject: 'Kestrel Looms Inc', kind: 'Form 10-K', period: 'Q3 2023', headline: [], running: [], source: 'caption' as const };
    expect(identityContext(identity, { besides: 'Q3 FY23 Kestrel Looms Earnings Call' })).not.toContain('2023');
    const annual = { ...identity, period: 'fiscal year ended December 31, 2022 (fiscal year 2022)' };
    expect(identityContext(annual, { besides: 'Form 10-K for Kestrel Looms filed 02/09/2023' })).toContain('fiscal year 2022');
  });

  it('gives plain text without headings no identity: a paragraph is not a title', async () => {
    const txt = await parseTxt(Buffer.from('The treaty was signed in 1995 after a long agreement process.\n\nIt entered into force two years later.'));
    expect(documentIdentity(txt, upload('notes-0001.txt'))).toBeNull();
  });

  it('never takes a page counter, a run of field labels or a bare code for the subject', async () => {
    // A form report: the largest cover line is a label run, the running header a page counter and a case number.
    const cover: PdfLine[] = [
      { text: 'Aircraft Make: Registration: Model/Series:', y: 700, size: 18 },
      { text: 'The pilot reported a loss of engine power during the climb after takeoff.', y: 640 },
    ];
    const pages = [cover, ...BODY.map((t, i) => bodyPage(i + 2, `Page ${i + 2} of 6 AB12CD345`, t))];
    const parsed = await parsePdf(pdfWithPages(pages));
    const identity = documentIdentity(parsed, upload('scan0001.pdf'));
    expect(identity?.subject ?? null).toBeNull();
    expect(identity?.confidence ?? 'low').toBe('low');
    // The counter is not kept as the document's context either; the case number is.
    expect(identity?.running.join(' ') ?? '').not.toMatch(/page \d+ of/i);
    expect(chunkContext(null, [], identity)).not.toMatch(/Aircraft Make|Page \d/);
  });

  it('reads the title line under a cover of empty fields, with high confidence, in any script', async () => {
    const md = await parseMarkdown(
      Buffer.from('# 项目编号： 密级：\n\n# 城市供水系统评估报告\n\n城市供水系统评估报告说明了全市水厂的运行情况。\n\n## 结论\n\n城市供水系统评估报告认为供水能力充足。\n'),
    );
    const identity = documentIdentity(md, upload('report.md'))!;
    expect(identity.subject).toBe('城市供水系统评估报告');
    expect(identity.confidence).toBe('high');
  });

  it('tells a name from what only looks like one', () => {
    for (const line of ['Page 2 of 4 AB12CD345', 'AB12CD345', '项目编号： 密级：', 'Vehicle Make: Acme Registration: Model/Series:', '第 3 页 共 12 页', '2019-04'])
      expect(notASubject(line), line).toBe(true);
    for (const line of ['Orchard Fields Ltd.', '3M Company', 'AT&T Inc.', 'Overview of the Technology Acceptance Model: Origins and Directions', '城市供水系统评估报告', 'Kundendienst GmbH'])
      expect(notASubject(line), line).toBe(false);
  });
});
