/**
 * A question asking for a figure in a period is answered with the table row or sentence that holds
 * a number for that measure and period, with its labels (row and column headers), not with the
 * certification or boilerplate sentences around it that name the same period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchableKb, type SearchBody } from '../helpers/searchable-kb';
import type { TestApp } from '../helpers/test-app';

const ANNUAL_MD = `# Halvard Shipping annual report, fiscal 2019

## Certification

I, the chief financial officer of Halvard Shipping, certify that the financial statements for fiscal year 2018 and fiscal year 2019 fairly present, in all material respects, the financial condition of the company, and that capital expenditure controls were effective in fiscal year 2018.

## Cash flows

Amounts in thousands of euros.

| Item | FY2017 | FY2018 | FY2019 |
|---|---|---|---|
| Net cash from operations | 41,200 | 44,950 | 47,310 |
| Capital expenditure | 12,400 | 15,870 | 18,020 |
| Dividends paid | 6,000 | 6,500 | 7,100 |

## Outlook

The board expects capital expenditure to stay at a similar level as the fleet renewal continues.
`;

const QUARTERLY_MD = `# Orvik Tools quarterly report

## Certifications

This quarterly report for the latest quarter has been certified by the chief executive officer, and the gross margin disclosures for the latest quarter comply with the requirements of the exchange.

## Results

| Measure | Q2 2024 | Q3 2024 |
|---|---|---|
| Net sales | 212.4 | 230.9 |
| Gross margin | 39.8% | 41.3% |
`;

let t: TestApp;
let search: (query: string) => Promise<SearchBody>;
beforeAll(async () => {
  ({ t, search } = await searchableKb([
    { name: 'halvard-annual.md', bytes: ANNUAL_MD },
    { name: 'orvik-q3-2024.md', bytes: QUARTERLY_MD },
  ]));
});
afterAll(() => t?.close());

describe('figure questions', () => {
  it('quotes the table row holding the figure, with its labels, not the certification', async () => {
    const { answer } = await search('What was capital expenditure in FY2018?');
    expect(answer).toMatch(/Item: Capital expenditure/);
    expect(answer).toMatch(/FY2018: 15,870/);
    expect(answer).not.toMatch(/certify|fairly present/);
  });

  it('quotes the row with a number for the measure, not the certification that names the same period', async () => {
    const { answer, citations } = await search('What was the gross margin for the latest quarter?');
    expect(answer).toMatch(/Measure: Gross margin/);
    expect(answer).toMatch(/41\.3%/);
    expect(answer).not.toMatch(/certified|comply/);
    expect(citations[0]!.filename).toBe('orvik-q3-2024.md');
  });
});
