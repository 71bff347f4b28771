/**
 * The server warms the embedding registry before it listens (src/server.ts): the offline model's
 * table is read and decoded then, not inside the first search, where it held the web loop.
 */
import { expect, it, vi } from 'vitest';
import { createEmbeddingRegistry } from '../../src/ai/embedding-registry';

const reads = vi.hoisted(() => ({ asset: 0 }));
vi.mock('node:fs/promises', async (importOriginal) =>
  (await import('../helpers/asset-reads')).countingAssetReads(await importOriginal<typeof import('node:fs/promises')>(), reads),
);

it('warm() loads the offline model once, so the first query reads nothing', async () => {
  const registry = createEmbeddingRegistry({ openai: null });
  expect(reads.asset).toBe(0);
  await registry.warm();
  expect(reads.asset).toBe(1);
  const vector = await registry.default.embedQuery('How do I install it?');
  expect(vector).toHaveLength(512);
  await registry.warm();
  expect(reads.asset).toBe(1);
});
