import zlib from 'node:zlib';

export type Inflated = { size: number; bytes?: Buffer; damaged?: true } | 'too_large';

/**
 * Inflates a deflate stream (`raw`, as in ZIP members, or `zlib`-wrapped, as in PDF streams),
 * counting its output and keeping it only if asked; stops as soon as it passes `budget`. A damaged
 * stream reports what it inflated to before the damage (pdf.js keeps that much too).
 */
export function inflateWithin(data: Uint8Array, budget: number, format: 'raw' | 'zlib', keep = false): Promise<Inflated> {
  return new Promise((resolve) => {
    const inflater = format === 'raw' ? zlib.createInflateRaw() : zlib.createInflate();
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (damaged: boolean) => resolve({ size, ...(keep && { bytes: Buffer.concat(chunks) }), ...(damaged && { damaged: true as const }) });
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > budget) {
        inflater.destroy();
        resolve('too_large');
      } else if (keep) chunks.push(chunk);
    });
    inflater.on('error', () => done(true));
    inflater.on('end', () => done(false));
    inflater.end(data);
  });
}

/** What a deflate stream inflates to, keeping none of it. */
export async function inflatedSize(data: Uint8Array, budget: number, format: 'raw' | 'zlib' = 'raw'): Promise<number | 'too_large' | 'damaged'> {
  const inflated = await inflateWithin(data, budget, format);
  if (inflated === 'too_large') return inflated;
  return inflated.damaged ? 'damaged' : inflated.size;
}
