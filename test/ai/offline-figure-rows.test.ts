/**
 * Figure questions over tables (issue 23 item 5): a table reaches the offline answerer as lines, a
 * PDF's rows as "label number number ..." under a line naming the periods, a Markdown table's as
 * "Header: value | ..." cells. The answer quotes the one row holding the figure, labelled with its
 * row label and its column header, not the whole table, not a certification, not a cross-reference.
 */
import { describe, expect, it } from 'vitest';
import { answerFromPassages } from '../../src/ai/offline/answerer';
import { holdsFigure } from '../../src/ai/offline/figures';
import { isPeriodHeader, isTableRow, labelRow, splitTableLines } from '../../src/ai/offline/table-rows';

const source = 'tern-ferries-2023.pdf, “Tern Ferries plc · annual report · fiscal year 2023”, page 77';

// As a PDF's text layer gives it: a caption, a header naming the periods, a sub-header, rows.
const RECONCILIATION = `The following reconciles the statutory tax to the income tax expense of Tern Ferries:
Years ended December 31, 2023 2022 2021
Amount Rate Amount Rate Amount Rate
Statutory tax ($1,054) 21.0 % ($1,057) 21.0 % ($3,039) 21.0 %
Valuation allowance 1,199 (23.9) 512 (10.2) 2,603 (18.0)
Harbour levy credits (204) 4.1 (189) 3.8 (284) 2.0
Income tax expense/(benefit) $31 (0.6)% ($743) 14.7 % ($2,535) 17.5 %

The certifying officers have reviewed the income tax disclosures for the years 2023 and 2022.`;

const passage = (text: string, marker = 1) => ({ marker, text, source, document: 'tern-ferries-2023.pdf' });

describe('table lines', () => {
  it('tells rows and period headers from prose', () => {
    expect(isTableRow('Valuation allowance 1,199 (23.9) 512 (10.2) 2,603 (18.0)')).toBe(true);
    expect(isTableRow('Item: Fuel cost | FY2022: 9,120 | FY2023: 10,480')).toBe(true);
    expect(isPeriodHeader('Years ended December 31, 2023 2022 2021')).toBe(true);
    expect(isTableRow('Years ended December 31, 2023 2022 2021')).toBe(false);
    // A wrapped prose line ending in years is not a row.
    expect(isTableRow('the fleet was renewed between 2021 and 2022')).toBe(false);
    expect(isTableRow('revenue grew in 2021 2022')).toBe(false);
    expect(splitTableLines('A caption line\nFuel cost 9,120 10,480\nHarbour fees 1,020 1,130')).toEqual(['A caption line', 'Fuel cost 9,120 10,480', 'Harbour fees 1,020 1,130']);
    expect(splitTableLines('Prose that wraps\nonto a second line.')).toEqual(['Prose that wraps\nonto a second line.']);
  });

  it('labels a PDF row with the periods of its columns', () => {
    expect(labelRow('Income tax expense/(benefit) $31 (0.6)% ($743) 14.7 % ($2,535) 17.5 %', 'Years ended December 31, 2023 2022 2021')).toBe(
      'Income tax expense/(benefit): 2023 $31 (0.6)%; 2022 ($743) 14.7 %; 2021 ($2,535) 17.5 %',
    );
    // Cells that do not divide among the periods keep the row whole, the header after it.
    expect(labelRow('Fuel cost 9,120 10,480 11,002', 'FY2022 FY2023')).toBe('Fuel cost 9,120 10,480 11,002 (FY2022 FY2023)');
  });
});

describe('figure questions answered from a table row', () => {
  it('quotes the PDF row holding the figure with its row label and column header, not the whole table or the certification', () => {
    const a = answerFromPassages('What was the income tax expense in 2022?', [passage(RECONCILIATION)]);
    expect(a.refused).toBe(false);
    expect(a.text).toBe('Income tax expense/(benefit): 2023 $31 (0.6)%; 2022 ($743) 14.7 %; 2021 ($2,535) 17.5 % [1].');
  });

  it('picks the row the question names among the rows of one table', () => {
    const a = answerFromPassages('What was the valuation allowance in 2023?', [passage(RECONCILIATION)]);
    expect(a.text).toMatch(/^Valuation allowance: 2023 1,199 \(23\.9\); 2022 512/);
    expect(a.text).not.toMatch(/Statutory tax|Harbour levy/);
  });

  it('quotes one labelled Markdown row, not every row of its table', () => {
    const table = [
      'Amounts in thousands of euros.',
      '',
      'Item | FY2022 | FY2023',
      'Item: Fuel cost | FY2022: 9,120 | FY2023: 10,480',
      'Item: Capital expenditure | FY2022: 15,870 | FY2023: 18,020',
      'Item: Dividends paid | FY2022: 6,500 | FY2023: 7,100',
    ].join('\n');
    const a = answerFromPassages('What was capital expenditure in FY2023?', [passage(table)]);
    expect(a.text).toBe('Item: Capital expenditure | FY2022: 15,870 | FY2023: 18,020 [1].');
  });

  it('prefers the sentence giving the amount to one citing a numbered note', () => {
    expect(holdsFigure('See Note 12 for information regarding the dividends of Tern Ferries.')).toBe(false);
    expect(holdsFigure('The certifications are in Item 8 and Exhibit 31.')).toBe(false);
    expect(holdsFigure('Over 61 per cent of the crossings ran on time.')).toBe(true);
    expect(holdsFigure('The quarterly dividend was $0.55 per share in 2023.')).toBe(true);
    const a = answerFromPassages('Has Tern Ferries paid dividends to shareholders in 2023?', [
      passage('See Note 12 for information regarding the dividends of Tern Ferries to its shareholders.', 1),
      passage('During 2023 and 2022, the quarterly cash dividend paid to shareholders was $0.55 and $0.50 per share, respectively.', 2),
    ]);
    expect(a.markers[0]).toBe(2);
    expect(a.text).toMatch(/\$0\.55/);
    expect(a.text).not.toMatch(/Note 12/);
  });
});
