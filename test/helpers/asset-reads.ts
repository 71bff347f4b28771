/**
 * A `node:fs/promises` whose readFile counts reads of the offline model's asset (`*.bin`), for tests
 * that prove when and how often it is loaded:
 *
 *   const reads = vi.hoisted(() => ({ asset: 0 }));
 *   vi.mock('node:fs/promises', async (importOriginal) => (await import('../helpers/asset-reads')).countingAssetReads(await importOriginal(), reads));
 */
export function countingAssetReads(actual: typeof import('node:fs/promises'), reads: { asset: number }): typeof import('node:fs/promises') {
  return {
    ...actual,
    readFile: ((path: Parameters<typeof actual.readFile>[0], ...rest: unknown[]) => {
      if (String(path).endsWith('.bin')) reads.asset++;
      return (actual.readFile as (...a: unknown[]) => unknown)(path, ...rest);
    }) as typeof actual.readFile,
  };
}
