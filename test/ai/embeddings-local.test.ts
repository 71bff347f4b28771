/**
 * The offline embedding provider (distilled USE-lite static table) as shipped:
 * shape, normalisation, determinism, semantic sanity, edge-case inputs, and that the
 * asset is read once per process however many providers exist.
 */
import { describe, expect, it, vi } from 'vitest';
import { createLocalEmbeddingProvider, loadLocalEncoder } from '../../src/ai/embeddings/local';
import { cpuMsOfAsync } from '../infra/cpu-time';

// Count reads of the asset file to prove the loader is shared.
const reads = vi.hoisted(() => ({ asset: 0 }));
vi.mock('node:fs/promises', async (importOriginal) =>
  (await import('../helpers/asset-reads')).countingAssetReads(await importOriginal<typeof import('node:fs/promises')>(), reads),
);

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe('createLocalEmbeddingProvider', () => {
  const provider = createLocalEmbeddingProvider();

  it('is lazy and shares one loaded asset across providers', async () => {
    expect(reads.asset).toBe(0); // creating a provider reads nothing
    const others = [createLocalEmbeddingProvider(), createLocalEmbeddingProvider()];
    await Promise.all([provider, ...others].map((p) => p.embedQuery('warm up')));
    await others[0]!.embedDocuments(['again']);
    expect(reads.asset).toBe(1);
    expect(await loadLocalEncoder()).toBe(await loadLocalEncoder());
  });

  it('declares its id and 512 dimensions and returns normalised Float32Arrays of that size', async () => {
    expect(provider.id).toBe('local:use-lite-distilled@1');
    expect(provider.dimensions).toBe(512);
    const [a, b] = await provider.embedDocuments(['The Eiffel Tower is in Paris.', 'Ein ganz anderer Satz.']);
    const q = await provider.embedQuery('Where is the Eiffel Tower?');
    for (const v of [a!, b!, q]) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(v.every(Number.isFinite)).toBe(true);
    }
  });

  it('is deterministic, and documents and queries live in the same space', async () => {
    const text = 'Photosynthesis converts light energy into chemical energy.';
    const [d1] = await provider.embedDocuments([text]);
    const [d2] = await createLocalEmbeddingProvider().embedDocuments([text]);
    const q = await provider.embedQuery(text);
    expect(Array.from(d2!)).toEqual(Array.from(d1!));
    expect(Array.from(q)).toEqual(Array.from(d1!));
  });

  it('ranks a relevant passage above unrelated ones', async () => {
    const q = await provider.embedQuery('How tall is the Eiffel tower?');
    const [relevant, unrelated, alsoUnrelated] = await provider.embedDocuments([
      'The Eiffel Tower is 330 metres high.',
      'The recipe needs two cups of flour and an egg.',
      'Quarterly revenue grew by four percent.',
    ]);
    expect(dot(q, relevant!)).toBeGreaterThan(dot(q, unrelated!) + 0.1);
    expect(dot(q, relevant!)).toBeGreaterThan(dot(q, alsoUnrelated!) + 0.1);

    // Paraphrase without shared words beats a lexical near-miss on another topic.
    const car = await provider.embedQuery('automobile repair');
    const [mechanic, tower] = await provider.embedDocuments(['A mechanic fixes cars in his garage.', 'The tower was repaired in 1900.']);
    expect(dot(car, mechanic!)).toBeGreaterThan(dot(car, tower!));
  });

  it('returns one vector per input, in order', async () => {
    const texts = Array.from({ length: 600 }, (_, i) => `sentence ${i} about ${i % 2 ? 'rivers' : 'volcanoes'}`);
    const vectors = await provider.embedDocuments(texts);
    expect(vectors).toHaveLength(600);
    expect(Array.from(vectors[599]!)).toEqual(Array.from(await provider.embedQuery(texts[599]!)));
    expect(await provider.embedDocuments([])).toEqual([]);
  });

  it('handles empty, whitespace-only and unknown-character text', async () => {
    const [empty, spaces, symbols] = await provider.embedDocuments(['', ' \n\t ', '\u0000\u0001']);
    for (const v of [empty!, spaces!, symbols!]) {
      expect(v.length).toBe(512);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(Array.from(spaces!)).toEqual(Array.from(empty!));
    // PDF line breaks do not change meaning.
    const a = await provider.embedQuery('the quick brown\nfox   jumps');
    const b = await provider.embedQuery('the quick brown fox jumps');
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it('gives the event loop a turn every few milliseconds of embedding, however long the texts', async () => {
    // 4,000-character texts cost ~3 ms each: yielding every 32 texts held the loop ~90 ms at a time.
    const words = 'revenue margin depot quarter guidance freight network segment outlook '.split(' ');
    const texts = Array.from({ length: 150 }, (_, i) => Array.from({ length: 600 }, (_, j) => words[(i * 7 + j * 13) % words.length]).join(' '));
    await provider.embedQuery('warm up'); // loading the asset is I/O, full of turns of its own
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const { cpuMs } = await cpuMsOfAsync(() => provider.embedDocuments(texts));
    running = false;
    // One turn per 8 ms slice of work. Counted against CPU time, not wall time: a loaded machine
    // stretches the wall time without adding turns, but not the work; the margin covers the ticks'
    // own CPU and the process's other threads.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(cpuMs / 30));
  });

  it('embeds very long text fast and uses all of it (no 128-piece cut-off)', async () => {
    const filler = 'The committee met on Tuesday to review the minutes of the previous meeting. '.repeat(60);
    const { value: [long, withTail], cpuMs } = await cpuMsOfAsync(() => provider.embedDocuments([filler, `${filler} Volcanic eruptions released lava and ash.`]));
    // Fast: CPU time, which other processes on a loaded machine do not inflate as they do wall time.
    expect(cpuMs).toBeLessThan(1000);
    expect(norm(long!)).toBeCloseTo(1, 5);
    expect(dot(long!, withTail!)).toBeLessThan(0.99999);

    const huge = 'word '.repeat(200_000);
    const v = await provider.embedQuery(huge);
    expect(norm(v)).toBeCloseTo(1, 5);
  });
});
