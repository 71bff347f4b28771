/**
 * Reporting periods as a question or a report's title writes them: the same quarter in its many
 * spellings, years told from counts, quarters that borrow the one year a question names, and
 * periods named relative to the latest report.
 */
import { describe, expect, it } from 'vitest';
import { findPeriods, latestPeriod, periodMatch, previousPeriod, questionPeriods, resolveRelative, withoutPeriods } from '../../src/text/periods';

const periods = (text: string, lenient = false) => findPeriods(text, { lenient }).map(({ quarter, year }) => ({ quarter, year }));

describe('findPeriods', () => {
  it('reads one quarter in its many spellings', () => {
    for (const text of [
      'Q3 2019',
      'Q3 FY19',
      'Q3 FY2019',
      'Q3 fiscal 2019',
      'Q3 Fiscal Year 2019',
      'Q3-2019',
      "Q3'19",
      "Q3 '19",
      '3Q19',
      '3Q 2019',
      'FY19 Q3',
      '2019 Q3',
      'the third quarter of fiscal 2019',
      'third fiscal quarter of 2019',
      '3rd quarter 2019',
      "2019's third quarter",
      'FY2019Q3',
      '2019Q3',
    ]) {
      expect(periods(`What was revenue in ${text}?`), text).toEqual([{ quarter: 3, year: 2019 }]);
    }
  });

  it('reads whole years, fiscal or not, and tells them from counts and names', () => {
    expect(periods('In fiscal year 2023, what was the typical sales cycle?')).toEqual([{ quarter: null, year: 2023 }]);
    expect(periods('What is the expected margin for the full year 2023?')).toEqual([{ quarter: null, year: 2023 }]);
    expect(periods('As of 2022, how did marketplace affect RPO?')).toEqual([{ quarter: null, year: 2022 }]);
    expect(periods('How did headcount compare between 2022 and 2021?')).toEqual([
      { quarter: null, year: 2022 },
      { quarter: null, year: 2021 },
    ]);
    expect(periods('What changed in FY23?')).toEqual([{ quarter: null, year: 2023 }]);
    // A date names its year.
    expect(periods('By how much did the facility grow on May 26, 2023?')).toEqual([{ quarter: null, year: 2023 }]);
    expect(periods('What was signed on June 3rd 2022?')).toEqual([{ quarter: null, year: 2022 }]);
    // Counts and names are not years.
    expect(periods('How many Global 2000 customers do they have?')).toEqual([]);
    expect(periods('They hired 2019 engineers.')).toEqual([]);
    expect(periods('What is the plan for the next 10-20 years?')).toEqual([]);
    expect(periods('Did fiscal year 10 employees leave?')).toEqual([]);
  });

  it('gives a quarter without a year the one year the text names, and none when it names two', () => {
    expect(periods("In 2021, how did Q3 RPO affect expected Q4 revenue growth?")).toEqual([
      { quarter: null, year: 2021 },
      { quarter: 3, year: 2021 },
      { quarter: 4, year: 2021 },
    ]);
    expect(periods('For customers landed in Q4 2021, what did they add to revenue in Q1 2022?')).toEqual([
      { quarter: 4, year: 2021 },
      { quarter: 1, year: 2022 },
    ]);
    expect(periods('What were fourth quarter bookings?')).toEqual([{ quarter: 4, year: null }]);
  });

  it('takes any plausible year in a title, and blanks what it found', () => {
    expect(periods('Acme Annual Report 2021', true)).toEqual([{ quarter: null, year: 2021 }]);
    expect(periods('Acme Annual Report 2021')).toEqual([]);
    const title = 'Q1 2022 Snowflake Inc. Earnings Call';
    expect(withoutPeriods(title, findPeriods(title, { lenient: true })).trim()).toBe('Snowflake Inc. Earnings Call');
  });
});

describe('questionPeriods', () => {
  it('keeps periods relative to the latest report apart from those named outright', () => {
    expect(questionPeriods("What did they say about margins in last year's fourth quarter?")).toMatchObject({
      named: [],
      relative: [{ latest: false, yearOffset: -1, quarter: 4 }],
    });
    expect(questionPeriods('What were bookings in the second quarter of this year?').relative).toEqual([{ latest: false, yearOffset: 0, quarter: 2 }]);
    expect(questionPeriods('How fast is revenue growing? Use the most recent call.').relative).toEqual([{ latest: true }]);
    expect(questionPeriods('How fast is revenue growing?').relative).toEqual([]);
    // Named outright and relative in one question: both are reported; the caller prefers the named.
    const both = questionPeriods("How does Q1 2023 cash flow compare to the previous year's?");
    expect(both.named.map((p) => [p.quarter, p.year])).toEqual([[1, 2023]]);
    expect(both.relative).toHaveLength(1);
  });

  it('finds the report that gives the outlook a question asks for: the period before', () => {
    expect(questionPeriods('What operating margin does Acme expect for the full year 2025?').guidedBy).toEqual([{ year: 2024, quarter: 4 }]);
    expect(questionPeriods('What was the revenue guidance for Q3 2024?').guidedBy).toEqual([{ year: 2024, quarter: 2 }]);
    expect(questionPeriods("What's the outlook for fiscal 2026 bookings?").guidedBy).toEqual([{ year: 2025, quarter: 4 }]);
    expect(questionPeriods('Which products were guided for the third quarter of 2026?').guidedBy).toEqual([{ year: 2026, quarter: 2 }]);
    // When the expectation was given, not what it is for; results, not expectations.
    expect(questionPeriods("What were the CFO's expectations for retention as of Q2 2024?").guidedBy).toEqual([]);
    expect(questionPeriods('Based on cash flow for Q2 2024, how does the anticipated full year compare?').guidedBy).toEqual([]);
    expect(questionPeriods('What was revenue for the full year 2024?').guidedBy).toEqual([]);
    expect(previousPeriod({ year: 2024, quarter: 1 })).toEqual({ year: 2023, quarter: 4 });
    expect(previousPeriod({ year: null, quarter: 1 })).toEqual({ year: null, quarter: 4 });
  });

  it('resolves relative periods against the latest period, a quarter after its whole year', () => {
    const latest = latestPeriod([
      { quarter: 4, year: 2022 },
      { quarter: 3, year: 2023 },
      { quarter: null, year: 2022 },
      { quarter: 1, year: 2023 },
    ])!;
    expect(latest).toEqual({ quarter: 3, year: 2023 });
    expect(latestPeriod([{ quarter: 4, year: 2022 }, { quarter: null, year: 2022 }])).toEqual({ quarter: 4, year: 2022 });
    expect(latestPeriod([{ quarter: 4, year: 2022 }, { quarter: null, year: 2023 }])).toEqual({ quarter: null, year: 2023 });
    expect(resolveRelative({ latest: false, yearOffset: -1, quarter: 4 }, latest)).toEqual({ quarter: 4, year: 2022 });
    expect(resolveRelative({ latest: true }, latest)).toEqual(latest);
  });
});

describe('periodMatch', () => {
  it('matches a period, the year it lies in, and nothing else', () => {
    expect(periodMatch({ quarter: 2, year: 2023 }, { quarter: 2, year: 2023 })).toBe(1);
    expect(periodMatch({ quarter: 2, year: 2023 }, { quarter: 2, year: 2022 })).toBe(0);
    expect(periodMatch({ quarter: 2, year: 2023 }, { quarter: 3, year: 2023 })).toBe(0);
    expect(periodMatch({ quarter: null, year: 2023 }, { quarter: 3, year: 2023 })).toBe(1);
    expect(periodMatch({ quarter: 2, year: 2023 }, { quarter: null, year: 2023 })).toBe(0.5);
    expect(periodMatch({ quarter: 4, year: null }, { quarter: 4, year: 2021 })).toBe(1);
    expect(periodMatch({ quarter: 4, year: null }, { quarter: 3, year: 2021 })).toBe(0);
  });
});
