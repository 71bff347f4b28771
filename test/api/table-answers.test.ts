/**
 * Numbers from tables come out with their labels: a table row is indexed as "Header: value" cells
 * (src/ingest/tables.ts), so the extractive answer that quotes it names the quarter and the measure
 * of each number, even when the header line is in another chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchableKb, type SearchBody } from '../helpers/searchable-kb';
import type { TestApp } from '../helpers/test-app';

const RESULTS_MD = `# Quarterly results

Figures in millions of US dollars, unaudited.

| Quarter | Product revenue | Operating margin | Remaining performance obligations |
|---|---|---|---|
${['Q1 2023', 'Q2 2023', 'Q3 2023', 'Q4 2023']
  .map((q, i) => `| ${q} | $${(394.4 + 71.6 * i).toFixed(1)} | ${3 + i}% | $${(3_700 + 150 * i).toLocaleString('en-US')} |`)
  .join('\n')}
`;

let t: TestApp;
let search: (query: string) => Promise<SearchBody>;
beforeAll(async () => {
  ({ t, search } = await searchableKb([{ name: 'results.md', bytes: RESULTS_MD }]));
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
