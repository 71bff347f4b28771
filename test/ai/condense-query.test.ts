import { describe, expect, it } from 'vitest';
import { cleanCondensedQuery, condenseQuestion } from '../../src/ai/condense';
import { condenseQueryOffline, createOfflineModel } from '../../src/answering/offline';
import type { ChatTurn } from '../../src/ai/prompts';

const zephyr: ChatTurn[] = [
  { role: 'user', content: 'Who makes the Zephyr-9?' },
  { role: 'assistant', content: 'The Zephyr-9 is designed and manufactured by Aerodyne Systems in Toulouse, France [1].' },
];
const ceo: ChatTurn[] = [
  { role: 'user', content: 'Who is the CEO of Aerodyne Systems?' },
  { role: 'assistant', content: 'Its chief executive officer is Claire Moreau [5].' },
];
const policy: ChatTurn[] = [
  { role: 'user', content: 'What is the refund policy?' },
  { role: 'assistant', content: 'Refunds are issued within 30 days of purchase [1].' },
];

describe('condenseQueryOffline', () => {
  it.each([
    [zephyr, 'How long can it fly?', 'How long can the Zephyr-9 fly?'],
    [zephyr, 'Is it waterproof?', 'Is the Zephyr-9 waterproof?'],
    [zephyr, 'What about its price?', "What about the Zephyr-9's price?"],
    [zephyr, 'How much does that cost?', 'How much does the Zephyr-9 cost?'],
    // "who" question: "they" is the answer, not the product.
    [zephyr, 'Where are they based?', 'Where are Aerodyne Systems based?'],
    // Same question, new subject.
    [zephyr, 'And the Zephyr-10?', 'Who makes the Zephyr-10?'],
    [ceo, 'What is her background?', "What is Claire Moreau's background?"],
    [ceo, 'When did she found it?', 'When did Claire Moreau found Aerodyne Systems?'],
    [policy, 'Does it apply to sale items?', 'Does the refund policy apply to sale items?'],
    [policy, 'And for digital products?', 'What is the refund policy for digital products?'],
  ])('%#: %s', (history, followUp, expected) => {
    expect(condenseQueryOffline(history, followUp)).toBe(expected);
  });

  it.each(['What is the warranty period for the Skyline X2?', 'What is RAG?', 'Thanks!', 'Tell me about the Zephyr-9 and its range.'])(
    'leaves a standalone follow-up alone: %s',
    (followUp) => {
      expect(condenseQueryOffline(zephyr, followUp)).toBe(followUp);
    },
  );

  describe('references resolved by what the question asks', () => {
    const maker: ChatTurn[] = [
      { role: 'user', content: 'Who manufactures the Zephyr-9 drone?' },
      { role: 'assistant', content: 'The Zephyr-9 is made by Northwind Aerial, a company based in Tromsø, Norway [1].' },
    ];
    const based: ChatTurn[] = [...maker, { role: 'user', content: 'Where is that company based?' }, { role: 'assistant', content: 'Northwind Aerial is based in Tromsø, Norway [1].' }];
    const crash: ChatTurn[] = [
      { role: 'user', content: 'What aircraft was involved in the accident?' },
      { role: 'assistant', content: 'The accident involved a Piper PA-28, registration N4283L, which crashed near Tifton, Georgia [1].' },
    ];
    const quarter: ChatTurn[] = [
      { role: 'user', content: 'What was product revenue in Q2 2022?' },
      { role: 'assistant', content: 'Product revenue was $202 million [1].' },
    ];
    const fiscal: ChatTurn[] = [
      { role: 'user', content: 'What was the gross margin in the third quarter of fiscal 2020?' },
      { role: 'assistant', content: 'Gross margin was 71% [1].' },
    ];
    it.each([
      // The company is named only in the answer.
      [maker, 'Where is that company based?', 'Where is Northwind Aerial based?'],
      // "it" stays the drone after a turn about its maker.
      [based, 'How long can it fly on one battery?', 'How long can the Zephyr-9 fly on one battery?'],
      [based, 'How many people work there?', 'How many people work in Tromsø?'],
      // "Where was it going?" asks about the aircraft, not a place.
      [crash, 'Where was it going?', 'Where was Piper PA-28 going?'],
      [quarter, 'How many customers were added in the same period?', 'How many customers were added in Q2 2022?'],
      // A period written out in words is carried as the same period (periods.ts reads both).
      [fiscal, 'How many customers were added in the same period?', 'How many customers were added in Q3 2020?'],
      // Existential "there" is not a place.
      [based, 'Is there a newer model?', 'Is there a newer model?'],
    ])('%#: %s', (history, followUp, expected) => {
      expect(condenseQueryOffline(history, followUp)).toBe(expected);
    });
  });

  it('returns the question unchanged without history', () => {
    expect(condenseQueryOffline([], '  How long can it fly? ')).toBe('How long can it fly?');
  });

  it('adds the previous question as context to a bare fragment', () => {
    expect(condenseQueryOffline(zephyr, 'How much?')).toBe('How much? (Who makes the Zephyr-9?)');
  });

  describe('references a follow-up makes by a common noun, an acronym, a period or a leading "and"', () => {
    const initiative: ChatTurn[] = [
      { role: 'user', content: 'Which council programme helps small shops move online?' },
      { role: 'assistant', content: 'Harbourlight is a Council-led initiative that gives small shops a website and training [1].' },
    ];
    const bureau: ChatTurn[] = [
      { role: 'user', content: 'Which new office did the ministry set up in 2016 for land records?' },
      { role: 'assistant', content: 'The Northern Land Records Bureau was set up on 1 October 2016 [2].' },
    ];
    const period: ChatTurn[] = [
      { role: 'user', content: 'By FY 2026, what share of requests does the Archive want ready on time?' },
      { role: 'assistant', content: 'By FY 2026, 95 percent of requests will be ready within the promised time [1].' },
    ];

    it('reads "that initiative" as the name the answer said is one', () => {
      expect(condenseQueryOffline(initiative, 'What has that initiative produced so far?')).toBe('What has Harbourlight produced so far?');
    });

    it('reads "that bureau" as the name that holds the word, and keeps "IT" as it is', () => {
      expect(condenseQueryOffline(bureau, "Which department secures that bureau's IT systems?")).toBe("Which department secures Northern Land Records Bureau's IT systems?");
    });

    it('never takes a period for what "it" means', () => {
      expect(condenseQueryOffline(period, 'Within how many days does it answer most requests?')).toBe('Within how many days does the Archive answer most requests?');
    });

    it('reads a whole question after "and" as that question, not as the previous one with a new name', () => {
      const condensed = condenseQueryOffline(bureau, 'And how many clerks did the Bureau hire that year?');
      expect(condensed.startsWith('How many clerks did the Bureau hire')).toBe(true);
      expect(condensed).not.toContain('new office');
    });

    it('moves the years of the previous question for "And two years later?"', () => {
      const staff: ChatTurn[] = [
        { role: 'user', content: 'How many full-time employees did the Harbour Board have in FY 2019?' },
        { role: 'assistant', content: 'In FY 2019, the board had 1,204 full-time employees [2].' },
      ];
      expect(condenseQueryOffline(staff, 'And two years later?')).toBe('How many full-time employees did the Harbour Board have in FY 2021?');
      expect(condenseQueryOffline(staff, 'What about the year before?')).toBe('How many full-time employees did the Harbour Board have in FY 2018?');
      // More than a shift: the follow-up is its own question.
      expect(condenseQueryOffline(staff, 'And two years later, how many contractors?')).not.toContain('full-time employees');
    });

    it('adds the previous question to "that <noun>" when no name of the conversation holds the noun', () => {
      const cut: ChatTurn[] = [
        { role: 'user', content: 'By how much does the Harbour Board plan to cut its diesel use by 2025?' },
        { role: 'assistant', content: 'By 2025, diesel use will be 12% below the 2019 level [1].' },
      ];
      expect(condenseQueryOffline(cut, 'What baseline is that cut measured against?')).toBe(
        'What baseline is that cut measured against? (By how much does the Harbour Board plan to cut its diesel use by 2025?)',
      );
    });

    it('keeps "it" on what the previous follow-up\'s "it" was, not on a name that turn used as a modifier', () => {
      const requests: ChatTurn[] = [
        ...period,
        { role: 'user', content: 'Within how many days does it answer most FOIA requests?' },
        { role: 'assistant', content: 'The Archive responds to most FOIA requests within 20 days [1].' },
      ];
      expect(condenseQueryOffline(requests, 'What share of its requests did it complete on time in FY 2023?')).toBe(
        "What share of the Archive's requests did it complete on time in FY 2023?",
      );
    });
  });
});

describe('condenseQuestion (same prompt and code path as with an LLM)', () => {
  const model = createOfflineModel();

  it('rewrites the Zephyr-9 follow-up through generateText', async () => {
    const q = await condenseQuestion({ model, history: zephyr, followUp: 'How long can it fly?' });
    expect(q).toBe('How long can the Zephyr-9 fly?');
  });

  it('keeps standalone questions and skips the model without history', async () => {
    expect(await condenseQuestion({ model, history: zephyr, followUp: 'What is the warranty period for the Skyline X2?' })).toBe(
      'What is the warranty period for the Skyline X2?',
    );
    const throwing = { ...model, doGenerate: () => Promise.reject(new Error('must not be called')) } as typeof model;
    expect(await condenseQuestion({ model: throwing, history: [], followUp: 'How long can it fly?' })).toBe('How long can it fly?');
  });

  it('cleans up what chat models tend to add', () => {
    expect(cleanCondensedQuery('Standalone question: "How long can the Zephyr-9 fly?"\n')).toBe('How long can the Zephyr-9 fly?');
    expect(cleanCondensedQuery('\n\n  How far?  ')).toBe('How far?');
  });
});
