/**
 * Numbers from tables come out with their labels: a table row is indexed as "Header: value" cells
 * (src/ingest/tables.ts), so the extractive answer that quotes it names the quarter and the measure
 * of each number, even when the header line is in another chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const RESULTS_MD = `# Quarterly results

Figures in millions of US dollars, unaudited.

| Quarter | Product revenue | Operating margin | Remaining performance obligations |
|---|---|---|---|
${['Q1 2023', 'Q2 2023', 'Q3 2023', 'Q4 2023']
  .map((q, i) => `| ${q} | $${(394.4 + 71.6 * i).toFixed(1)} | ${3 + i}% | $${(3_700 + 150 * i).toLocaleString('en-US')} |`)
  .join('\n')}
`;

let t: TestApp;
let search: (query: string) => Promise<{ answer: string; citations: Array<{ filename: string }> }>;
beforeAll(async () => {
  t = await createTestApp();
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  const kbId = (await api.post('/api/kbs', { name: 'Results' })).body.kb.id;
  expect((await uploadFile(t.app, api_key, kbId, { name: 'results.md', bytes: RESULTS_MD })).status).toBe(202);
  await runQueuedJobs(t);
  search = async (query) => (await api.post('/api/rag/search', { kb_id: kbId, query })).body;
});
afterAll(() => t?.close());

describe('answers from a table', () => {
  it('quotes the row of the period asked about, each number with its column label', async () => {
    const { answer, citations } = await search('What was product revenue in Q3 2023?');
    expect(answer).toMatch(/Quarter: Q3 2023/);
    expect(answer).toMatch(/Product revenue: \$537\.6/);
    expect(answer).toMatch(/Operating margin: 5%/);
    expect(citations[0]!.filename).toBe('results.md');
  });
});
