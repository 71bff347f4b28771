/**
 * The OpenAI embedding provider against the local fake OpenAI server over real HTTP:
 * @ai-sdk/openai runs unchanged, so batching, ordering, `dimensions` and errors are
 * exercised on the wire.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIEmbeddingProvider } from '../../src/ai/embeddings/openai';
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const provider = (opts: Partial<Parameters<typeof createOpenAIEmbeddingProvider>[0]> = {}) =>
  createOpenAIEmbeddingProvider({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0, ...opts });

describe('createOpenAIEmbeddingProvider', () => {
  it('defaults to text-embedding-3-small at 1536 dimensions', () => {
    const p = provider();
    expect(p.id).toBe('openai:text-embedding-3-small@1536');
    expect(p.dimensions).toBe(1536);
  });

  it('batches documents 256 per request, keeps order, returns normalised Float32Arrays', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `chunk number ${i} about topic ${i % 7}`);
    const vectors = await provider().embedDocuments(texts);

    const embedCalls = fake.requests.filter((r) => r.endpoint === 'embeddings');
    expect(embedCalls.map((r) => r.body.input.length).sort((a, b) => b - a)).toEqual([256, 256, 88]);
    expect(embedCalls.every((r) => r.body.model === 'text-embedding-3-small' && r.body.dimensions === undefined)).toBe(true);

    expect(vectors).toHaveLength(600);
    for (const i of [0, 255, 256, 599]) {
      const v = vectors[i]!;
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(1536);
      const expected = fakeEmbedding(texts[i]!, 1536);
      expect(Array.from(v.subarray(0, 8))).toEqual(expected.slice(0, 8).map((x) => expect.closeTo(x, 6)));
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
  });

  it('bounds parallel requests and honours a custom batch size', async () => {
    await provider({ batchSize: 10, maxParallelCalls: 2 }).embedDocuments(Array.from({ length: 35 }, (_, i) => `t${i}`));
    expect(fake.requests.filter((r) => r.endpoint === 'embeddings').map((r) => r.body.input.length)).toEqual([10, 10, 10, 5]);
  });

  it('asks text-embedding-3 models for shortened vectors when dimensions is set', async () => {
    const p = provider({ dimensions: 256 });
    expect(p.id).toBe('openai:text-embedding-3-small@256');
    const v = await p.embedQuery('How tall is the Eiffel tower?');
    expect(v.length).toBe(256);
    const request = fake.requests.find((r) => r.endpoint === 'embeddings' && r.body.input[0] === 'How tall is the Eiffel tower?');
    expect(request?.body.dimensions).toBe(256);
  });

  it('embeds a query with one request and empty input with none', async () => {
    const p = provider();
    expect(await p.embedDocuments([])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
    const v = await p.embedQuery('');
    expect(v.length).toBe(1536);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.input).toEqual([' ']);
  });

  it('refuses a vector of the wrong size instead of storing it', async () => {
    const p = provider({ model: 'nomic-embed-text', dimensions: 768 });
    await expect(p.embedQuery('x')).rejects.toThrow(/returned 1536 dimensions, expected 768/);
  });

  it('needs dimensions for a model it does not know', () => {
    expect(() => provider({ model: 'nomic-embed-text' })).toThrow(/pass `dimensions`/);
  });

  it('surfaces API errors', async () => {
    await expect(createOpenAIEmbeddingProvider({ apiKey: 'wrong', baseURL: fake.url, maxRetries: 0 }).embedQuery('x')).rejects.toThrow();
  });
});
