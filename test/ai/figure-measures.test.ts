/**
 * A question's measures are read from the passages (src/answering/offline/figures.ts): a question
 * word the passages write a figure right after, in any domain, not a word from a list.
 */
import { describe, expect, it } from 'vitest';
import { figureMeasures, holdsFigure } from '../../src/answering/offline/figures';
import { tokenize } from '../../src/text/tokens';

const sentences = (...texts: string[]) => texts.map((text) => ({ text, tokens: tokenize(text) }));
const stems = (text: string) => tokenize(text).filter((t) => !t.stop).map((t) => t.stem);

describe('figure measures', () => {
  it('takes a word the passages give a figure for as the measure, whatever the domain', () => {
    const passages = sentences('Total flight time: 2,319 hours.', 'The pilot held a commercial certificate.');
    expect(figureMeasures('How much flight time did the pilot have?', stems('flight time'), passages)).toEqual(stems('flight time'));
  });

  it('is no figure question when the passages give no figure after its words', () => {
    const passages = sentences('The probable cause was the pilot’s failure to maintain clearance from terrain.');
    expect(figureMeasures('What was the probable cause?', stems('probable cause'), passages)).toEqual([]);
  });

  it('does not count outline numbers or page numbers after leader dots as figures', () => {
    const passages = sentences('Roadway Safety ...15 Strategy 1.3.6', 'Strategic Plan ...42 Tactic 1.3.3.4');
    expect(figureMeasures('What road safety strategy was put out?', stems('road safety strategy'), passages)).toEqual([]);
    expect(holdsFigure('Roadway Safety ...15 Strategy 1.3.6')).toBe(false);
    expect(holdsFigure('Capital expenditures: $1,577.')).toBe(true);
  });

  it('does not ask who, when, where or why for a figure', () => {
    const passages = sentences('Chief executive: Jane Roe, 52.');
    expect(figureMeasures('Who is the chief executive?', stems('chief executive'), passages)).toEqual([]);
  });
});
