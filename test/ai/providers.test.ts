/**
 * The model registry and @ai-sdk/openai against the local fake OpenAI server, over real HTTP:
 * the production client code runs unchanged, including its error handling.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, embedMany, generateText, streamText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { condenseQuestion } from '../../src/ai/condense';
import { OfflineLanguageModel } from '../../src/answering/offline';
import { buildAnswerPrompt, parseAnswerPrompt, PASSAGES_BEGIN, type PlainMessage } from '../../src/ai/prompts';
import { createModelRegistry, DEFAULT_OPENAI_CHAT_MODEL } from '../../src/ai/providers';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIRequest } from '../fakes/openai-server';
import { ZEPHYR_PASSAGES } from './kb-fixture';

/** A scripted "LLM": says which passages it was shown, citing each. */
function passagesEcho(req: FakeOpenAIRequest): string {
  const parsed = parseAnswerPrompt(req.messages.map((m) => ({ role: m.role, text: m.content }) as PlainMessage));
  if (!parsed) return 'No passages.';
  return `Answer to "${parsed.question}" from ${parsed.passages.map((p) => `${p.source} [${p.marker}]`).join(', ')}.`;
}

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: passagesEcho });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.setReply(passagesEcho);
});

describe('createModelRegistry', () => {
  it('uses the offline models when OpenAI is not configured', () => {
    for (const registry of [createModelRegistry(), createModelRegistry({ openai: { apiKey: '  ' } })]) {
      expect(registry.mode).toBe('offline');
      expect(registry.answerModel).toBeInstanceOf(OfflineLanguageModel);
      expect(registry.condenseModel).toBeInstanceOf(OfflineLanguageModel);
      expect(registry.answerModel.specificationVersion).toBe('v2');
    }
  });

  it('uses OpenAI chat completions when configured, gpt-4o-mini by default', () => {
    const registry = createModelRegistry({ openai: { apiKey: 'sk-x' } });
    expect(registry.mode).toBe('openai');
    expect(registry.answerModel.provider).toBe('openai.chat');
    expect(registry.answerModel.modelId).toBe(DEFAULT_OPENAI_CHAT_MODEL);
    expect(registry.condenseModel.modelId).toBe(DEFAULT_OPENAI_CHAT_MODEL);
    expect(createModelRegistry({ openai: { apiKey: 'sk-x', model: 'llama3.1' } }).answerModel.modelId).toBe('llama3.1');
  });
});

describe('OpenAI mode end to end (fake server, real HTTP)', () => {
  const registry = () => createModelRegistry({ openai: { apiKey: fake.apiKey, baseURL: fake.url } });
  const prompt = buildAnswerPrompt({
    question: 'How long can it fly?',
    passages: ZEPHYR_PASSAGES.slice(0, 2),
    history: [
      { role: 'user', content: 'Who makes the Zephyr-9?' },
      { role: 'assistant', content: 'Aerodyne Systems [1].' },
    ],
  });

  it('generateText sends the shared prompt to /v1/chat/completions', async () => {
    const { text, usage, finishReason } = await generateText({ model: registry().answerModel, ...prompt });
    expect(text).toBe('Answer to "How long can it fly?" from zephyr-overview.md [1], zephyr-specs.pdf [2].');
    expect(finishReason).toBe('stop');
    expect(usage.outputTokens).toBeGreaterThan(0);

    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(req.body.model).toBe('gpt-4o-mini');
    expect(req.body.stream).toBeUndefined();
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(req.messages[0]!.content).toContain(PASSAGES_BEGIN);
    expect(req.messages[0]!.content).toBe(prompt.system);
  });

  it('streamText streams SSE chunks with usage', async () => {
    const result = streamText({ model: registry().answerModel, ...prompt });
    const deltas: string[] = [];
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe('Answer to "How long can it fly?" from zephyr-overview.md [1], zephyr-specs.pdf [2].');
    const usage = await result.usage;
    expect(usage.inputTokens).toBeGreaterThan(50);
    expect(usage.outputTokens).toBe(deltas.length);
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('condenses follow-ups with the same prompt builder as offline', async () => {
    fake.setReply((req) => {
      expect(req.messages[0]!.content.startsWith('Task: condense-query')).toBe(true);
      expect(req.lastUserText).toContain('Follow-up question: How long can it fly?');
      return 'Standalone question: "How long can the Zephyr-9 fly?"';
    });
    const q = await condenseQuestion({
      model: registry().condenseModel,
      history: [{ role: 'user', content: 'Who makes the Zephyr-9?' }],
      followUp: 'How long can it fly?',
    });
    expect(q).toBe('How long can the Zephyr-9 fly?');
    expect(fake.requests[0]!.body.temperature).toBe(0);
  });

  it('embedMany works against /v1/embeddings with dimensions', async () => {
    const openai = createOpenAI({ apiKey: fake.apiKey, baseURL: fake.url });
    const values = ['The Zephyr-9 flies for 95 minutes.', 'How long does the Zephyr-9 fly?', 'Refund policy for sale items.'];
    const { embeddings, usage } = await embedMany({
      model: openai.textEmbeddingModel('text-embedding-3-small'),
      values,
      providerOptions: { openai: { dimensions: 256 } },
    });
    expect(embeddings).toHaveLength(3);
    expect(embeddings.every((e) => e.length === 256)).toBe(true);
    expect(usage.tokens).toBeGreaterThan(0);
    const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(cos(embeddings[0]!, embeddings[0]!)).toBeCloseTo(1, 5);
    expect(cos(embeddings[0]!, embeddings[1]!)).toBeGreaterThan(cos(embeddings[0]!, embeddings[2]!));
    // Deterministic.
    const again = await embedMany({ model: openai.textEmbeddingModel('text-embedding-3-small'), values: [values[0]!], providerOptions: { openai: { dimensions: 256 } } });
    expect(again.embeddings[0]).toEqual(embeddings[0]);
    expect(fake.requests[0]!.body).toMatchObject({ model: 'text-embedding-3-small', input: values, dimensions: 256, encoding_format: 'float' });
  });

  it('serves base64 embeddings, 1536 dimensions by default', async () => {
    const res = await fetch(`${fake.url}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'hello world', encoding_format: 'base64' }),
    });
    const body = (await res.json()) as { object: string; data: Array<{ object: string; index: number; embedding: string }> };
    expect(body.object).toBe('list');
    const buf = Buffer.from(body.data[0]!.embedding, 'base64');
    expect(buf.length).toBe(1536 * 4);
  });

  it('the Responses API works too (generate and stream)', async () => {
    const openai = createOpenAI({ apiKey: fake.apiKey, baseURL: fake.url });
    fake.setReply(() => 'Responses API says hi [1].');
    const { text } = await generateText({ model: openai.responses('gpt-4o-mini'), system: 'Be brief.', prompt: 'Hi' });
    expect(text).toBe('Responses API says hi [1].');
    const result = streamText({ model: openai.responses('gpt-4o-mini'), prompt: 'Hi' });
    const deltas: string[] = [];
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.join('')).toBe('Responses API says hi [1].');
    expect(deltas.length).toBeGreaterThan(1);
    expect((await result.usage).outputTokens).toBe(deltas.length);
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
    expect(fake.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });
});

describe('error paths', () => {
  it('a wrong key is a 401 with OpenAI’s error message', async () => {
    const { answerModel } = createModelRegistry({ openai: { apiKey: 'sk-wrong-key-1234', baseURL: fake.url } });
    const err = await generateText({ model: answerModel, prompt: 'Hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    expect((err as APICallError).statusCode).toBe(401);
    expect((err as APICallError).message).toContain('Incorrect API key provided');
  });

  it.each([429, 500])('a %i surfaces as an error from generateText', async (status) => {
    const { answerModel } = createModelRegistry({ openai: { apiKey: fake.apiKey, baseURL: fake.url } });
    fake.failNext({ status }, 1);
    const err = await generateText({ model: answerModel, prompt: 'Hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    expect((err as APICallError).statusCode).toBe(status);
    expect((err as APICallError).isRetryable).toBe(true);
  });

  it('a 500 surfaces as an error part from streamText', async () => {
    const { answerModel } = createModelRegistry({ openai: { apiKey: fake.apiKey, baseURL: fake.url } });
    fake.failNext({ status: 500 }, 1);
    const errors: unknown[] = [];
    const result = streamText({ model: answerModel, prompt: 'Hi', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);
    expect(parts).toContain('error');
    expect((errors[0] as APICallError).statusCode).toBe(500);
  });

  it('retries a 429 after retry-after-ms and then succeeds', async () => {
    const { answerModel } = createModelRegistry({ openai: { apiKey: fake.apiKey, baseURL: fake.url } });
    fake.setReply(() => 'Second time lucky.');
    fake.failNext({ status: 429, retryAfterMs: 10 }, 1);
    const { text } = await generateText({ model: answerModel, prompt: 'Hi', maxRetries: 1 });
    expect(text).toBe('Second time lucky.');
    expect(fake.requests).toHaveLength(2);
  });

  it('a connection dropped mid-stream makes the text stream throw after the words received', async () => {
    // Unlike an HTTP error status (an error part, textStream just ends), a broken body rejects the
    // consumer's read: callers streaming to a client must catch around their for-await.
    const broken = await startFakeOpenAI({ reply: () => 'one two three four five six', dropStreamAfterChunks: 2, chunkDelayMs: 20 });
    try {
      const { answerModel } = createModelRegistry({ openai: { apiKey: broken.apiKey, baseURL: broken.url } });
      const result = streamText({ model: answerModel, prompt: 'Hi', maxRetries: 0, onError: () => {} });
      let text = '';
      const consume = async () => {
        for await (const d of result.textStream) text += d;
      };
      const err = await consume().catch((e: unknown) => e);
      expect(APICallError.isInstance(err)).toBe(true);
      expect(text).toBe('one two ');
    } finally {
      await broken.close();
    }
  });

  it('honours injected latency', async () => {
    const slow = await startFakeOpenAI({ delayMs: 120 });
    try {
      const { answerModel } = createModelRegistry({ openai: { apiKey: slow.apiKey, baseURL: slow.url } });
      const t0 = performance.now();
      const { text } = await generateText({ model: answerModel, prompt: 'ping' });
      expect(text).toBe('Echo: ping');
      expect(performance.now() - t0).toBeGreaterThanOrEqual(100);
    } finally {
      await slow.close();
    }
  });
});
