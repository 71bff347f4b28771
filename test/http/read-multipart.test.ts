/**
 * readMultipart copies a file's pieces into 1 MB buffers as they arrive (so a socket read's memory is
 * free at once): whatever the pieces' sizes, every byte comes back in order, for each file, and a
 * piece already copied is not held.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { readMultipart } from '../../src/http/read-multipart';
import { exposedGc } from '../../src/jobs/collect-after-jobs';

const MB = 1024 * 1024;

function multipart(files: Array<{ name: string; bytes: Buffer }>): Buffer {
  const parts = files.flatMap((f) => [
    Buffer.from(`--B\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    f.bytes,
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...parts, Buffer.from('--B--\r\n')]);
}

function uploadRequest(body: ReadableStream<Uint8Array>): Request {
  return new Request('http://x/upload', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=B' }, body, duplex: 'half' } as RequestInit);
}

/** The body in pieces of `size` bytes, as a socket would hand it over. */
function request(body: Buffer, size: number): Request {
  let at = 0;
  return uploadRequest(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= body.length) return controller.close();
        controller.enqueue(body.subarray(at, (at += size)));
      },
    }),
  );
}

it.each([7_001, 65_536, 3 * MB])('returns every byte of each file, in pieces of %i bytes', async (size) => {
  const big = randomBytes(Math.round(3.5 * MB));
  const exact = randomBytes(MB);
  const small = Buffer.from('refunds take 5 days');
  const body = multipart([
    { name: 'big.bin', bytes: big },
    { name: 'exact.bin', bytes: exact },
    { name: 'small.txt', bytes: small },
  ]);
  const { files } = await readMultipart(request(body, size), { maxFileBytes: 4 * MB, maxFiles: 3, maxTotalBytes: 8 * MB });
  expect(files.map((f) => f.filename)).toEqual(['big.bin', 'exact.bin', 'small.txt']);
  expect(files[0]!.bytes.equals(big)).toBe(true);
  expect(files[1]!.bytes.equals(exact)).toBe(true);
  expect(files[2]!.bytes.equals(small)).toBe(true);
});

it('drops the bytes of a file over the limit and marks it, keeping the others whole', async () => {
  const over = randomBytes(2 * MB);
  const good = randomBytes(MB / 2);
  const { files } = await readMultipart(request(multipart([{ name: 'over.bin', bytes: over }, { name: 'good.bin', bytes: good }]), 65_536), {
    maxFileBytes: MB,
    maxFiles: 2,
    maxTotalBytes: 4 * MB,
  });
  expect(files.map((f) => [f.filename, f.tooLarge ?? false, f.bytes.length])).toEqual([
    ['over.bin', true, 0],
    ['good.bin', false, good.length],
  ]);
  expect(files[1]!.bytes.equals(good)).toBe(true);
});

it('holds no piece it has copied: the first socket read can be collected while the file still arrives', async () => {
  // Every piece used to be kept until its file ended: concurrent uploads grew glibc's heap by their total.
  const gc = exposedGc();
  const body = multipart([{ name: 'big.bin', bytes: randomBytes(4 * MB) }]);
  let at = 0;
  let first: WeakRef<ArrayBuffer> | undefined;
  let collectedMidway: boolean | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (at >= body.length) return controller.close();
      if (at >= 3 * MB && collectedMidway === undefined) {
        await new Promise((r) => setTimeout(r, 0));
        gc();
        collectedMidway = first!.deref() === undefined;
      }
      // A fresh buffer per piece, as each socket read is.
      const piece = new Uint8Array(body.subarray(at, (at += 65_536)));
      first ??= new WeakRef(piece.buffer);
      controller.enqueue(piece);
    },
  });
  const { files } = await readMultipart(uploadRequest(stream), { maxFileBytes: 5 * MB });
  expect(files[0]!.bytes.length).toBe(4 * MB);
  expect(collectedMidway).toBe(true);
});
