import zlib from 'node:zlib';

/**
 * Inflates a deflate stream (`raw`, as in ZIP members, or `zlib`-wrapped, as in PDF streams),
 * counting its output and keeping none of it; stops as soon as it passes `budget`.
 */
export function inflatedSize(data: Uint8Array, budget: number, format: 'raw' | 'zlib' = 'raw'): Promise<number | 'too_large' | 'damaged'> {
  return new Promise((resolve) => {
    const inflater = format === 'raw' ? zlib.createInflateRaw() : zlib.createInflate();
    let size = 0;
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > budget) {
        inflater.destroy();
        resolve('too_large');
      }
    });
    inflater.on('error', () => resolve('damaged'));
    inflater.on('end', () => resolve(size));
    inflater.end(data);
  });
}
