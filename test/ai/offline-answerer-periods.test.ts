/**
 * The offline answerer over passages of several periodic reports of one organisation: the period a
 * question names is said by each report's source line ("fiscal year ended December 31, 2022"), not
 * by its passages, and the question writes it otherwise ("FY2022"). The answer is quoted from the
 * report of that period, even where another year's report holds a sentence matching more words; a
 * question over a range of periods is answered from the report of the latest, which gives the
 * earlier ones for comparison. Own fixtures (document-period.ts).
 */
import { describe, expect, it } from 'vitest';
import { answerFromPassages } from '../../src/answering/offline/answerer';
import { documentPeriodFit } from '../../src/answering/offline/document-period';
import { passageSource, type AnswerPassage } from '../../src/ai/prompts';
import { analyseQuestion } from '../../src/answering/analyse-question';

const report = (year: number) => ({
  name: `0000950170-${String(year + 1).slice(2)}-000123.pdf`,
  title: `Contoso Freight plc · Form 10-K · fiscal year ended December 31, ${year} (fiscal year ${year})`,
});
// As answer-stream.ts numbers them: the document is known to the answerer only through the source line.
const passage = (marker: number, year: number, page: number, text: string): AnswerPassage => ({ marker, text, source: passageSource({ ...report(year), page }) });

const PASSAGES: AnswerPassage[] = [
  passage(1, 2018, 40, 'Contoso Freight is a capital-intensive business: the fleet of wagons and locomotives needs constant maintenance.'),
  passage(2, 2018, 41, 'Capital expenditure was 1,577 in 2018, mostly on new wagons.'),
  passage(3, 2022, 38, 'Since 2021 Contoso Freight leases most of its wagons, so the business is less capital-intensive: capital expenditure on the fleet fell to 412 in 2022.'),
  passage(4, 2022, 39, 'The lease liabilities of the business were 2,310 at the end of 2022.'),
  passage(5, 2020, 36, 'Revenue was 5,120 in 2020, after 5,404 in 2019.'),
];

describe('offline answerer over reports of several periods', () => {
  it('reads each passage period from its source line, not from how the question writes it', () => {
    const fit = documentPeriodFit(analyseQuestion('Is Contoso capital-intensive based on FY2022 data?'), PASSAGES.map((p) => p.source));
    expect(fit).toEqual([0, 0, 1, 1, 0]);
    // A question naming no period leaves the passages alike.
    expect(documentPeriodFit(analyseQuestion('Is Contoso capital-intensive?'), PASSAGES.map((p) => p.source))).toEqual([null, null, null, null, null]);
    // A number in a file name is a counter as often as a year: untitled files have no period.
    expect(documentPeriodFit(analyseQuestion('Who won the league in 2015?'), ['squad-2015.txt', 'squad-17.txt'])).toEqual([null, null]);
    // A report whose source line names no period is of no other period: unknown, not off target, and
    // "the latest quarter" cannot be resolved past it.
    const undated = passageSource({ name: 'orvik-q3.md', title: 'Orvik Tools quarterly report', page: 2 });
    expect(documentPeriodFit(analyseQuestion('Is Contoso capital-intensive based on FY2022 data?'), [PASSAGES[2]!.source, undated])).toEqual([1, null]);
    expect(documentPeriodFit(analyseQuestion('What was the gross margin for the latest quarter?'), [PASSAGES[0]!.source, undated])).toEqual([null, null]);
  });

  it("answers from the report of the year the question names, not another year's look-alike", () => {
    const answer = answerFromPassages(analyseQuestion('Is Contoso Freight a capital-intensive business based on FY2022 data?'), PASSAGES);
    expect(answer.refused).toBe(false);
    // Passage 1 holds "capital-intensive business" word for word, but it is the 2018 report's.
    expect(answer.markers).not.toContain(1);
    expect(answer.markers[0]).toBe(3);
  });

  it('answers a question over a range of periods from the report of the latest', () => {
    const fit = documentPeriodFit(analyseQuestion('How did Contoso revenue change from FY2020 to FY2022?'), PASSAGES.map((p) => p.source));
    expect(fit).toEqual([0, 0, 1, 1, 0.5]);
    const answer = answerFromPassages(analyseQuestion('How did the capital expenditure of Contoso Freight change from FY2018 to FY2022?'), PASSAGES);
    expect(answer.refused).toBe(false);
    // Not also the 2018 report's "Capital expenditure was 1,577 in 2018": the 2022 report is the one asked.
    expect(answer.markers).toEqual([3]);
  });
});

describe('a question for a period no passage speaks of', () => {
  const staff = (marker: number, text: string): AnswerPassage => ({ marker, text, source: passageSource({ name: 'workforce.pdf', title: 'Harbour Agency workforce report', page: marker }) });

  it('is refused rather than answered with the figures of other years', () => {
    const passages = [staff(1, 'In FY 2019, the agency had 5,497 full-time equivalent employees.'), staff(2, 'In FY 2022, the agency had 2,560 full-time equivalent employees.')];
    const answer = answerFromPassages(analyseQuestion('How many full-time equivalent employees did the agency have in FY 2021?'), passages);
    expect(answer.refused).toBe(true);
  });

  it('is answered from the sentence about that year when one is there', () => {
    const passages = [staff(1, 'In FY 2019, the agency had 5,497 full-time equivalent employees.'), staff(2, 'In FY 2021, the agency had 3,104 full-time equivalent employees.')];
    const answer = answerFromPassages(analyseQuestion('How many full-time equivalent employees did the agency have in FY 2021?'), passages);
    expect(answer.refused).toBe(false);
    expect(answer.text).toContain('3,104');
    expect(answer.text).not.toContain('5,497');
  });
});

describe('a table whose columns are years', () => {
  it('answers a question for one of its years from it, though the year stands bare', () => {
    const table: AnswerPassage = {
      marker: 1,
      source: passageSource({ name: 'pensions.pdf', title: 'Harbour Agency annual report 2021', page: 94 }),
      text: 'Estimated future benefit payments to retirees (dollars in millions) are expected as follows: 2022 $ 2,049 2023 1,648 2024 1,097 2025 1,066 2027 to 2031 5,097.',
    };
    const answer = answerFromPassages(analyseQuestion('As of FY 2021, how much did the agency expect to pay its retirees in 2024?'), [table]);
    expect(answer.refused).toBe(false);
    expect(answer.text).toContain('1,097');
  });
});
