/**
 * The offline answerer over passages of several documents of one series (calls of one company):
 * a name the question gives is what it asks about, not the topic every document shares, although
 * most of the documents retrieved name it ("What impact has Northwind had on Acme?" is answered by
 * what Northwind did, in words other than "impact").
 */
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { answerFromPassages, createOfflineModel } from '../../src/answering/offline';
import { buildAnswerPrompt, passageSource, type AnswerPassage } from '../../src/ai/prompts';
import { analyseQuestion } from '../../src/answering/analyse-question';

const passage = (marker: number, document: string, text: string): AnswerPassage => ({ marker, document, source: `${document}.pdf`, text });

/** Five passages of three calls; only the first says what Northwind did for Acme. */
const CALLS: Array<[document: string, text: string]> = [
  ['Q3 2021 Acme call', 'Northwind has driven a lot of new interest in the combined Acme offerings.'],
  ['Q3 2021 Acme call', 'The connector for Acme is now generally available to every customer.'],
  ['Q4 2020 Acme call', 'Partners such as Northwind or Contoso make Acme data easier to use for the mass market.'],
  ['Q1 2023 Acme call', 'What are you seeing in terms of the negative effect at Acme that you discussed right now? Acme rolled out the scheduler in January.'],
  ['Q1 2023 Acme call', 'Acme expects the scheduler to lower consumption for a quarter.'],
];

describe('offline answerer over documents of one series', () => {
  it('answers about the name the question gives, not a sentence that shares only its other word', () => {
    const passages = CALLS.map(([document, text], i) => passage(i + 1, document, text));
    const answer = answerFromPassages(analyseQuestion('What impact has Northwind had on Acme?'), passages);
    expect(answer.refused).toBe(false);
    expect(answer.markers[0]).toBe(1);
    expect(answer.text).toContain('Northwind has driven');
  });

  it('tells the documents apart through the prompt, where only the source lines say them', async () => {
    // As answer-stream.ts numbers them: no `document` reaches the model, only "file, page N".
    const onPage = (marker: number, file: string, text: string): AnswerPassage => ({ marker, source: passageSource({ name: `${file}.pdf`, page: 10 + marker }), text });
    const passages = CALLS.map(([file, text], i) => onPage(i + 1, file, text));
    const { system, messages } = buildAnswerPrompt({ question: 'What impact has Northwind had on Acme?', passages });
    const { text } = await generateText({ model: createOfflineModel(), system, messages });
    expect(text.startsWith('Northwind has driven a lot of new interest in the combined Acme offerings [1].')).toBe(true);
  });

  it('does not take a weekday or a month for a name the question asks about', () => {
    const passages = [
      passage(1, 'handbook', 'The office opens at nine on weekdays.'),
      passage(2, 'calendar', 'Every Sunday in May the museum closes early.'),
      passage(3, 'menu', 'The canteen serves lunch until two.'),
    ];
    expect(answerFromPassages(analyseQuestion('What are the opening hours of the Louvre on Sundays in May?'), passages).refused).toBe(true);
  });
});
