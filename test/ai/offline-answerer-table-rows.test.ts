/**
 * A PDF table printed as a row's label on one line and its values on the next: the offline answer
 * quotes the label with its values, never the label alone (which says no figure) nor the values
 * alone (which say nothing of what they count).
 */
import { describe, expect, it } from 'vitest';
import { answerFromPassages } from '../../src/answering/offline/answerer';
import { analyseQuestion } from '../../src/answering/analyse-question';

const TABLE = [
  'Goal 2: Reliable Service',
  'Performance Measure FY 2021 Results',
  'FY 2022 Results',
  'FY 2022 Target',
  '',
  'Number of households connected to the district heating network',
  '',
  '4,120 4,480 4,500 Not Met',
  '',
  'Percent of repairs completed within two days',
  '',
  '81% 86% 85% Met',
].join('\n');

describe('table rows whose values are on the line below their label', () => {
  it('quotes the label with its values', () => {
    const answer = answerFromPassages(analyseQuestion('How many households were connected to the district heating network?'), [
      { marker: 1, text: TABLE, source: 'heat-report.pdf, page 12', document: 'heat-report.pdf' },
    ]);
    expect(answer.refused).toBe(false);
    expect(answer.text).toContain('Number of households connected to the district heating network 4,120 4,480 4,500');
    expect(answer.text).not.toContain('repairs');
  });

  it('quotes the row, not also its label alone, when another passage holds the label without its values', () => {
    const cut = 'FY 2022 Results\n\nNumber of households connected to the district heating network';
    const answer = answerFromPassages(analyseQuestion('What was the FY 2022 result for the number of households connected to the district heating network?'), [
      { marker: 1, text: cut, source: 'heat-report.pdf, page 11', document: 'heat-report.pdf' },
      { marker: 2, text: TABLE, source: 'heat-report.pdf, page 12', document: 'heat-report.pdf' },
    ]);
    expect(answer.text).toContain('network 4,120 4,480 4,500');
    expect(answer.text.match(/Number of households/g)).toHaveLength(1);
  });

  it('leaves a sentence followed by figures as it is', () => {
    const text = 'The network grew again this year.\n\n4,120 4,480 4,500';
    const answer = answerFromPassages(analyseQuestion('Did the network grow this year?'), [{ marker: 1, text, source: 'heat-report.pdf, page 3', document: 'heat-report.pdf' }]);
    expect(answer.text).toMatch(/^The network grew again this year \[1\]\.$/);
  });
});
