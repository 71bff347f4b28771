import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { answerFromPassages, createOfflineModel, detectQuestionType, extractCitedMarkers } from '../../src/answering/offline';
import { buildAnswerPrompt, NOT_FOUND_ANSWER } from '../../src/ai/prompts';
import { TESLA_CASES, TESLA_PASSAGES, ZEPHYR_CASES, ZEPHYR_PASSAGES } from './kb-fixture';
import { cpuMsOfAsync } from '../infra/cpu-time';
import { analyseQuestion } from '../../src/answering/analyse-question';

const model = createOfflineModel();

describe('offline answerer', () => {
  it.each([...ZEPHYR_CASES.map((c) => ({ ...c, kb: 'zephyr' })), ...TESLA_CASES.map((c) => ({ ...c, kb: 'tesla' }))])(
    '$kb: $question',
    async ({ question, expect: answer, marker, kb }) => {
      const passages = kb === 'zephyr' ? ZEPHYR_PASSAGES : TESLA_PASSAGES;
      const { system, messages } = buildAnswerPrompt({ question, passages });
      const { text, finishReason } = await generateText({ model, system, messages });
      expect(text).toContain(answer);
      // The sentence holding the answer is cited with its own passage's marker.
      const sentence = text.split(/(?<=\]\.)\s+/).find((s) => s.includes(answer))!;
      expect(extractCitedMarkers(sentence)).toEqual([marker]);
      expect(finishReason).toBe('stop');
    },
  );

  it('cites real passage markers, not positions', () => {
    const renumbered = ZEPHYR_PASSAGES.map((p, i) => ({ ...p, marker: 10 + i }));
    const a = answerFromPassages(analyseQuestion('How much does the Zephyr-9 weigh?'), renumbered);
    expect(a.text).toContain('4.2 kilograms without its payload [10].');
    expect(a.markers).toEqual([10]);
  });

  it('is robust to passage order', () => {
    const reversed = [...ZEPHYR_PASSAGES].reverse();
    const a = answerFromPassages(analyseQuestion('When was the Zephyr-9 first unveiled?'), reversed);
    expect(a.text).toContain('June 2021 [1].');
  });

  it.each([
    'What is the boiling point of mercury?',
    'Who won the 2018 World Cup?',
    'How do I bake sourdough bread?',
    // The topic matches but nothing says what is asked about it.
    'What is the price of the Zephyr-9?',
  ])('refuses when the passages do not answer: %s', async (question) => {
    const { system, messages } = buildAnswerPrompt({ question, passages: ZEPHYR_PASSAGES });
    const { text } = await generateText({ model, system, messages });
    expect(text).toBe(NOT_FOUND_ANSWER);
  });

  it('refuses when nothing was retrieved', async () => {
    const { system, messages } = buildAnswerPrompt({ question: 'Who makes the Zephyr-9?', passages: [] });
    expect((await generateText({ model, system, messages })).text).toBe(NOT_FOUND_ANSWER);
  });

  it('answers the last question of a conversation', async () => {
    const { system, messages } = buildAnswerPrompt({
      question: 'How many people work at Aerodyne?',
      passages: ZEPHYR_PASSAGES,
      history: [
        { role: 'user', content: 'Who makes the Zephyr-9?' },
        { role: 'assistant', content: 'Aerodyne Systems [1].' },
      ],
    });
    expect((await generateText({ model, system, messages })).text).toContain('340');
  });

  it('treats a prompt it does not recognise as unanswerable', async () => {
    const { text } = await generateText({ model, prompt: 'Write a poem about the sea.' });
    expect(text).toBe(NOT_FOUND_ANSWER);
  });

  it('classifies questions by their first wh-phrase', () => {
    expect(detectQuestionType('When was it built?')).toBe('date');
    expect(detectQuestionType('In what year did Tesla die?')).toBe('date');
    expect(detectQuestionType('What type of cascade results when proteins bind?')).toBe('other');
    expect(detectQuestionType('How long is the warranty?')).toBe('duration');
    expect(detectQuestionType('How many people work there?')).toBe('number');
    expect(detectQuestionType('Who makes it?')).toBe('person');
    expect(detectQuestionType('Where is the factory?')).toBe('place');
    expect(detectQuestionType('Why did it fail?')).toBe('reason');
  });
});

describe('offline model streaming', () => {
  const question = 'How long can the Zephyr-9 fly on one battery?';

  it('streams word by word through streamText, ending with the generateText answer', async () => {
    const { system, messages } = buildAnswerPrompt({ question, passages: ZEPHYR_PASSAGES });
    const expected = (await generateText({ model, system, messages })).text;

    const result = streamText({ model, system, messages });
    const deltas: string[] = [];
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(expected);
    expect(await result.text).toBe(expected);
    expect(await result.finishReason).toBe('stop');
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(deltas.length);
    expect(usage.inputTokens).toBeGreaterThan(100);
  });

  it('emits the LanguageModelV2 stream parts in order', async () => {
    const { system, messages } = buildAnswerPrompt({ question, passages: ZEPHYR_PASSAGES });
    const { stream } = await model.doStream({
      prompt: [
        { role: 'system', content: system },
        { role: 'user', content: [{ type: 'text', text: messages[0]!.content as string }] },
      ],
    });
    const types: string[] = [];
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      types.push(value.type);
    }
    expect(types.slice(0, 3)).toEqual(['stream-start', 'response-metadata', 'text-start']);
    expect(types.slice(-2)).toEqual(['text-end', 'finish']);
    expect(types.filter((t) => t === 'text-delta').length).toBe(types.length - 5);
  });

  it('stops at maxOutputTokens with finishReason length', async () => {
    const { system, messages } = buildAnswerPrompt({ question, passages: ZEPHYR_PASSAGES });
    const r = await generateText({ model, system, messages, maxOutputTokens: 3 });
    expect(r.text.split(/\s+/).filter(Boolean)).toHaveLength(3);
    expect(r.finishReason).toBe('length');
  });

  it('honours an abort signal', async () => {
    const { system, messages } = buildAnswerPrompt({ question, passages: ZEPHYR_PASSAGES });
    const controller = new AbortController();
    controller.abort();
    await expect(generateText({ model, system, messages, abortSignal: controller.signal, maxRetries: 0 })).rejects.toThrow();
  });

  it('has a fast time to first token on 5 passages of ~300 tokens', async () => {
    // ~1,200+ characters (~300 tokens) per passage: each passage padded with the others' sentences.
    const all = ZEPHYR_PASSAGES.map((p) => p.text).join(' ');
    const passages = ZEPHYR_PASSAGES.map((p, i) => ({ ...p, text: `${p.text} ${all.slice(i * 97)} ${all}`.slice(0, 1_300) }));
    expect(passages.every((p) => p.text.length >= 1_200)).toBe(true);
    const { system, messages } = buildAnswerPrompt({ question: 'How much does the Zephyr-9 weigh?', passages });
    await generateText({ model, system, messages }); // warm up module-level caches once
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { cpuMs } = await cpuMsOfAsync(async () => {
        const result = streamText({ model, system, messages });
        for await (const _ of result.textStream) break;
      });
      samples.push(cpuMs);
    }
    const median = samples.sort((a, b) => a - b)[2]!;
    // The product target is < 150 ms of wall time, which bench/search.ts measures (TTFT); this
    // only catches gross regressions, in CPU time, which a loaded machine does not inflate.
    expect(median).toBeLessThan(1_000);
  });
});
