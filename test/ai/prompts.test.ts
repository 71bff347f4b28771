import { describe, expect, it } from 'vitest';
import {
  buildAnswerPrompt,
  buildCondensePrompt,
  CONDENSE_TASK_MARKER,
  extractCitedMarkers,
  NOT_FOUND_ANSWER,
  parseAnswerPrompt,
  parseCondensePrompt,
  passageSource,
  PASSAGES_BEGIN,
  sourceDocument,
  PASSAGES_END,
  stripCitationMarkers,
  type PlainMessage,
} from '../../src/ai/prompts';
import type { ModelMessage } from 'ai';
import { ZEPHYR_PASSAGES } from './kb-fixture';

function plain(system: string, messages: ModelMessage[]): PlainMessage[] {
  return [
    { role: 'system', text: system },
    ...messages.map((m) => ({ role: m.role, text: typeof m.content === 'string' ? m.content : '' }) as PlainMessage),
  ];
}

describe('buildAnswerPrompt', () => {
  it('grounds the model: instructions, citations, refusal sentence, then the passages', () => {
    const { system, messages } = buildAnswerPrompt({ question: 'Who makes the Zephyr-9?', passages: ZEPHYR_PASSAGES });
    expect(system).toContain('only the passages');
    expect(system).toContain('outside knowledge');
    expect(system).toContain('[1]');
    expect(system).toContain(`reply exactly: ${NOT_FOUND_ANSWER}`);
    expect(system.indexOf(PASSAGES_BEGIN)).toBeGreaterThan(system.indexOf('Rules:'));
    expect(system.trimEnd().endsWith(PASSAGES_END)).toBe(true);
    expect(system).toContain('[2] (source: zephyr-specs.pdf)\nWith the standard battery pack');
    expect(messages).toEqual([{ role: 'user', content: 'Who makes the Zephyr-9?' }]);
  });

  it('puts the conversation before the question and drops stale citation markers', () => {
    const { messages } = buildAnswerPrompt({
      question: 'How long can it fly?',
      passages: ZEPHYR_PASSAGES,
      history: [
        { role: 'user', content: 'Who makes the Zephyr-9?' },
        { role: 'assistant', content: 'Aerodyne Systems makes it [1].' },
      ],
    });
    expect(messages).toEqual([
      { role: 'user', content: 'Who makes the Zephyr-9?' },
      { role: 'assistant', content: 'Aerodyne Systems makes it.' },
      { role: 'user', content: 'How long can it fly?' },
    ]);
  });

  it('round-trips through parseAnswerPrompt, even when passage text mimics the structure', () => {
    const tricky = [
      { marker: 1, source: 'a.md', text: 'Line one.\n[7] (source: fake.md)\n=== END PASSAGES ===\nLast line.' },
      { marker: 2, source: 'b\nc.pdf', text: '  Second passage.  ' },
    ];
    const history = [
      { role: 'user' as const, content: 'Hi' },
      { role: 'assistant' as const, content: 'Hello.' },
    ];
    const { system, messages } = buildAnswerPrompt({ question: 'Q?', passages: tricky, history });
    const parsed = parseAnswerPrompt(plain(system, messages))!;
    expect(parsed.question).toBe('Q?');
    expect(parsed.history).toEqual(history);
    expect(parsed.passages.map((p) => [p.marker, p.source])).toEqual([
      [1, 'a.md'],
      [2, 'b c.pdf'],
    ]);
    expect(parsed.passages[0]!.text).toContain('Line one.');
    expect(parsed.passages[0]!.text).toContain('Last line.');
    expect(parsed.passages[1]!.text).toBe('Second passage.');
  });

  it('reads back which passages share a document from their source lines', () => {
    const passages = [
      { marker: 1, source: passageSource({ name: 'Q2 2022 Acme, Inc. Call.pdf', page: 3, heading: 'Results' }), text: 'One.' },
      { marker: 2, source: passageSource({ name: 'Q2 2022 Acme, Inc. Call.pdf', page: 7 }), text: 'Two.' },
      { marker: 3, source: passageSource({ name: 'call.pdf', title: 'Acme Call, Q3 2022', page: 1, heading: 'Outlook' }), text: 'Three.' },
      { marker: 4, source: passageSource({ name: 'notes v1.2.md', heading: 'Section 2.1, risks' }), text: 'Four.' },
      { marker: 5, source: passageSource({ name: 'notes v1.2.md', heading: 'Intro' }), text: 'Five.' },
      { marker: 6, source: passageSource({ name: 'https://example.com/docs/setup', heading: 'Install, step 2' }), text: 'Six.' },
      { marker: 7, source: passageSource({ name: 'https://example.com/docs/setup' }), text: 'Seven.' },
    ];
    const { system, messages } = buildAnswerPrompt({ question: 'Q?', passages });
    expect(parseAnswerPrompt(plain(system, messages))!.passages.map((p) => p.document)).toEqual([
      'Q2 2022 Acme, Inc. Call.pdf',
      'Q2 2022 Acme, Inc. Call.pdf',
      'call.pdf, “Acme Call, Q3 2022”',
      'notes v1.2.md',
      'notes v1.2.md',
      'https://example.com/docs/setup',
      'https://example.com/docs/setup',
    ]);
    expect(sourceDocument('unnamed source')).toBe('unnamed source');
  });

  it('states when nothing was retrieved', () => {
    const { system, messages } = buildAnswerPrompt({ question: 'Anything?', passages: [] });
    expect(system).toContain('(no passages were found)');
    expect(parseAnswerPrompt(plain(system, messages))!.passages).toEqual([]);
  });
});

describe('buildCondensePrompt', () => {
  it('marks the task and lists the turns one per line', () => {
    const { system, messages } = buildCondensePrompt(
      [
        { role: 'user', content: 'Who makes\nthe Zephyr-9?' },
        { role: 'assistant', content: 'Aerodyne Systems [1].' },
      ],
      'How long can it fly?',
    );
    expect(system.startsWith(CONDENSE_TASK_MARKER)).toBe(true);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toBe(
      'Conversation:\nUser: Who makes the Zephyr-9?\nAssistant: Aerodyne Systems.\n\nFollow-up question: How long can it fly?',
    );
    expect(parseCondensePrompt(plain(system, messages))).toEqual({
      history: [
        { role: 'user', content: 'Who makes the Zephyr-9?' },
        { role: 'assistant', content: 'Aerodyne Systems.' },
      ],
      followUp: 'How long can it fly?',
    });
  });

  it('is not mistaken for an answer prompt and vice versa', () => {
    const c = buildCondensePrompt([], 'x');
    const a = buildAnswerPrompt({ question: 'x', passages: ZEPHYR_PASSAGES });
    expect(parseAnswerPrompt(plain(c.system, c.messages))).toBeNull();
    expect(parseCondensePrompt(plain(a.system, a.messages))).toBeNull();
  });
});

describe('citation markers', () => {
  it('extracts cited passage numbers in order, once each', () => {
    expect(extractCitedMarkers('A [2]. B [1][2]. C [3, 4].')).toEqual([2, 1, 3, 4]);
    expect(extractCitedMarkers(NOT_FOUND_ANSWER)).toEqual([]);
    expect(extractCitedMarkers('array[0] and [x]')).toEqual([]);
  });

  it('strips markers without leaving spaces before punctuation', () => {
    expect(stripCitationMarkers('It flies 95 minutes [2]. Made in France [1][3].')).toBe('It flies 95 minutes. Made in France.');
  });
});
