/**
 * Document identity in ranking and answers: a question that names a company prefers the document
 * that is about that company (its running header says so; no passage of it repeats the name)
 * over another company's document that names it as a competitor. Opaque file names and an
 * accession-number metadata title leave the identity as the only place the name is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { pdfWithPages, type PdfLine } from '../ingest/pdf-fixture';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

function report(header: string, pages: string[][]): Buffer {
  const body = pages.map((lines, i): PdfLine[] => [
    { text: header, y: 760, size: 8 },
    ...lines.map((text, j) => ({ text, y: 680 - j * 40 })),
    { text: `Page ${i + 1}`, y: 40, size: 8 },
  ]);
  return pdfWithPages(body, { Title: '0000950170-23-004411' });
}

type ListedDocument = { filename: string; identity: { subject: string | null; period: string | null; source: string } | null };

/** A new organisation's KB with these PDFs uploaded through REST and ingested; its documents as the API lists them. */
async function ingestedKb(files: Record<string, Buffer>) {
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  const kbId: string = (await api.post('/api/kbs', { name: 'Filings' })).body.kb.id;
  for (const [name, bytes] of Object.entries(files)) {
    expect((await uploadFile(t.app, api_key, kbId, { name, bytes, type: 'application/pdf' })).status).toBe(202);
  }
  await runQueuedJobs(t);
  const docs = (await api.get(`/api/kbs/${kbId}/documents`)).body.documents as ListedDocument[];
  return { api, kbId, docs };
}

describe('a question naming a company', () => {
  it('prefers the document about it over one naming it as a competitor, in retrieval and in the answer', async () => {
    const contoso = report('Contoso Freight plc | Annual Report 2023', [
      ['Our people operate depots in twelve countries.', 'Safety training continued at every site.'],
      ['Freight revenue grew 7 percent to 1.2 billion, led by rail volumes.', 'Rail volumes rose on new contracts.'],
      ['Fuel costs fell as the fleet was renewed.', 'The dividend was raised by 3 percent.'],
      ['Capital spending was 140 million on new wagons.', 'Debt was refinanced at lower rates.'],
    ]);
    const fabrikam = report('Fabrikam Logistics Inc | Annual Report 2023', [
      ['Our warehouses serve retail customers.', 'Automation reduced picking times.'],
      ['We compete with Contoso Freight, whose freight revenue grew on rail volumes, and with smaller carriers.', 'Competition for rail contracts remained intense.'],
      ['Fabrikam revenue grew 2 percent in parcels.', 'Parcel volumes were flat.'],
      ['Capital spending was 60 million on sorting centres.', 'Leases were extended.'],
    ]);
    // Opaque names, as files saved from a filing index are: the names tell nothing.
    const { api, kbId, docs } = await ingestedKb({ '0000950170-23-004411.pdf': contoso, '0000950170-23-009902.pdf': fabrikam });
    const about = Object.fromEntries(docs.map((d) => [d.filename, d.identity?.subject]));
    expect(about['0000950170-23-004411.pdf']).toContain('Contoso Freight plc');
    expect(about['0000950170-23-009902.pdf']).toContain('Fabrikam Logistics Inc');

    const res = await api.post('/api/rag/search', { kb_id: kbId, query: "How much did Contoso's freight revenue grow on rail volumes?", top_k: 3 });
    expect(res.status).toBe(200);
    const citations = res.body.citations as Array<{ filename: string; page: number | null }>;
    expect(citations[0]).toMatchObject({ filename: '0000950170-23-004411.pdf', page: 2 });
    expect(res.body.answer).toContain('7 percent');
  });
});

describe('a question naming a quarter as FY2024Q1', () => {
  it("prefers the quarter's press release, whose metadata title names only the exhibit, over the annual report", async () => {
    const annual = pdfWithPages(
      [
        [
          { text: 'FORM 10-K', y: 740, size: 18 },
          { text: 'ANNUAL REPORT for the fiscal year ended December 31, 2023', y: 700 },
          { text: 'CONTOSO FREIGHT PLC', y: 660, size: 18 },
          { text: '(Exact name of registrant as specified in its charter)', y: 640, size: 8 },
        ],
        [
          { text: 'Contoso Freight raised its full year guidance twice in 2023 because rail volumes grew.', y: 680 },
          { text: 'Why guidance was raised: new rail contracts and lower fuel costs.', y: 640 },
        ],
      ],
      { Title: '0000950170-24-000101' },
    );
    const release = pdfWithPages(
      [
        [
          { text: 'Contoso Freight Reports First-Quarter 2024 Results; Raises Full-Year Guidance', y: 740, size: 14 },
          { text: 'LONDON - April 24, 2024 - Contoso Freight plc (NASDAQ: CFRT) today reported results for the first quarter.', y: 700 },
          { text: 'Given a strong start to the year, the company now expects full-year organic revenue to grow 8 percent on new rail contracts.', y: 660 },
        ],
      ],
      { Title: 'Q1 2024 8-K - Exhibit 99.1' },
    );
    const { api, kbId, docs } = await ingestedKb({ '0000950170-24-000101.pdf': annual, 'ex99-1.pdf': release });
    // The release's issuer is read from "(NASDAQ: CFRT)", not from its exhibit title.
    expect(docs.find((d) => d.filename === 'ex99-1.pdf')?.identity).toMatchObject({ subject: 'Contoso Freight plc', period: 'Q1 2024' });

    const res = await api.post('/api/rag/search', { kb_id: kbId, query: 'As of FY2024Q1, why did Contoso Freight raise its full year guidance?', top_k: 2 });
    expect(res.status).toBe(200);
    expect((res.body.citations as Array<{ filename: string }>)[0]?.filename).toBe('ex99-1.pdf');
  });
});
