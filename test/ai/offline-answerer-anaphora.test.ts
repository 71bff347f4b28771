/**
 * A sentence that opens with a pronoun or demonstrative continues the subject of the one before it:
 * "It has eleven members" is about the tribunal the previous sentence names, so the question words
 * there count for it almost as if it repeated them.
 */
import { describe, expect, it } from 'vitest';
import { answerFromPassages } from '../../src/answering/offline';
import type { AnswerPassage } from '../../src/ai/prompts';
import { analyseQuestion } from '../../src/answering/analyse-question';

const passage = (marker: number, text: string): AnswerPassage => ({ marker, document: `doc-${marker}`, source: `harbour-${marker}.md`, text });

describe('offline answerer and sentences that continue the previous one', () => {
  it('answers with the sentence whose subject is in the sentence before', () => {
    const passages = [
      passage(
        1,
        'The Harbour Tribunal is the highest court of the port authority for shipping disputes. ' +
          'It has eleven members, pilots and merchants alike, chosen by the harbour assembly for a four-year term. ' +
          'The Harbour Tribunal cannot write new port rules; it only interprets existing ones.',
      ),
      passage(2, 'The port authority has twenty members, who publish its tariffs every spring. Its members meet monthly.'),
      passage(3, 'Members of the pilots guild settle disputes about cargo damage by arbitration.'),
    ];
    const answer = answerFromPassages(analyseQuestion('How many members make up the Harbour Tribunal?'), passages);
    expect(answer.refused).toBe(false);
    expect(answer.ranked[0]!.text).toMatch(/^It has eleven members/);
    expect(answer.text.startsWith('It has eleven members')).toBe(true);
  });

  it('does not carry the previous sentence into one that starts anew', () => {
    const passages = [
      passage(
        1,
        'The Harbour Tribunal is the highest court of the port authority for shipping disputes. ' +
          'Pilots have eleven members on the harbour assembly, chosen for a four-year term.',
      ),
      passage(2, 'The Harbour Tribunal has five members, all of them former captains.'),
    ];
    const answer = answerFromPassages(analyseQuestion('How many members make up the Harbour Tribunal?'), passages);
    expect(answer.text.startsWith('The Harbour Tribunal has five members')).toBe(true);
  });
});
