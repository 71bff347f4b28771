/**
 * Streams a multipart/form-data body with busboy, enforcing the upload size limit while bytes
 * arrive: an oversized upload is refused (413) without ever being held whole in memory.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { AppError } from '../errors';

/** `tooLarge`: over maxFileBytes in a multi-file upload; its bytes are dropped and the caller reports it. */
export type MultipartFile = { field: string; filename: string; mimeType: string; bytes: Buffer; tooLarge?: boolean };
export type MultipartBody = { fields: Record<string, string>; files: MultipartFile[] };

/**
 * With maxFiles > 1 a file over maxFileBytes no longer fails the request (the others are still good):
 * it comes back marked tooLarge. maxTotalBytes bounds the whole body (default: one file's limit).
 */
export async function readMultipart(
  request: Request,
  limits: { maxFileBytes: number; maxFiles?: number; maxTotalBytes?: number },
): Promise<MultipartBody> {
  const maxFiles = limits.maxFiles ?? 1;
  const maxTotal = Math.max(limits.maxTotalBytes ?? limits.maxFileBytes, limits.maxFileBytes);
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new AppError('unsupported_media_type', 'Upload the file as multipart/form-data with fields "file" and "kb_id"');
  }
  const declared = Number(request.headers.get('content-length') ?? NaN);
  // The multipart envelope adds a little; anything far beyond the limit is refused before reading.
  if (Number.isFinite(declared) && declared > maxTotal + 64 * 1024) throw maxTotal > limits.maxFileBytes ? requestTooLarge(maxTotal) : tooLarge(limits.maxFileBytes);
  if (!request.body) throw new AppError('invalid_input', 'The request has no body', { field: 'file' });

  return new Promise<MultipartBody>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fileSize: limits.maxFileBytes, files: maxFiles, fields: 20, fieldSize: 64 * 1024 },
      });
    } catch {
      reject(new AppError('invalid_input', 'Malformed multipart/form-data body'));
      return;
    }
    const fields: Record<string, string> = {};
    const files: MultipartFile[] = [];
    let failed: AppError | null = null;
    let received = 0;
    const fail = (err: AppError) => {
      failed ??= err;
    };

    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      let parts = fileBytes();
      let over = false;
      stream.on('data', (d: Buffer) => {
        received += d.length;
        if (received > maxTotal) fail(requestTooLarge(maxTotal));
        if (!over) parts.add(d);
      });
      stream.on('limit', () => {
        if (maxFiles === 1) fail(tooLarge(limits.maxFileBytes));
        over = true;
        parts = fileBytes();
      });
      // busboy errors the file stream too when the body ends mid-part; unhandled, that event would
      // stop the process. The parser's own 'error' below answers the request.
      stream.on('error', () => fail(new AppError('invalid_input', 'Malformed multipart/form-data body: it ends before its closing boundary')));
      stream.on('end', () => {
        if (over) files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.alloc(0), tooLarge: true });
        else if (!(stream as { truncated?: boolean }).truncated) {
          files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: parts.whole() });
        }
      });
    });
    parser.on('filesLimit', () =>
      fail(new AppError('invalid_input', maxFiles === 1 ? 'Upload one file per request' : `Upload at most ${maxFiles} files per request`, { field: 'file' })),
    );
    parser.on('error', () => reject(failed ?? new AppError('invalid_input', 'Malformed multipart/form-data body')));
    parser.on('finish', () => {
      if (failed) reject(failed);
    });
    parser.on('close', () => (failed ? reject(failed) : resolve({ fields, files })));

    const body = Readable.fromWeb(request.body as unknown as WebReadableStream<Uint8Array>);
    body.on('error', () => reject(new AppError('invalid_input', 'The upload was interrupted')));
    body.pipe(parser);
  });
}

/** What fileBytes() copies the socket's pieces into, a buffer at a time. */
const COALESCE_BYTES = 1024 * 1024;

/**
 * A file's bytes as they arrive. Each piece busboy hands over is a view of a socket read (64 KB,
 * from glibc's heap); keeping them all until the file ended held a whole upload in that heap, and
 * concurrent uploads grew it by their total, which glibc could not give back once fragmented (8
 * uploads of 24 MB at once: 242 MB that stayed; issue 26). Copied into 1 MB buffers (mapped apart,
 * returned when freed), the pieces are garbage at once and their memory is reused by the next reads.
 */
function fileBytes() {
  const whole: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const settle = () => {
    if (pending.length > 0) whole.push(Buffer.concat(pending, pendingBytes));
    pending = [];
    pendingBytes = 0;
  };
  return {
    add(piece: Buffer) {
      pending.push(piece);
      pendingBytes += piece.length;
      if (pendingBytes >= COALESCE_BYTES) settle();
    },
    whole(): Buffer {
      settle();
      return whole.length === 1 ? whole[0]! : Buffer.concat(whole);
    },
  };
}

function requestTooLarge(max: number) {
  return new AppError('payload_too_large', `The upload exceeds the request limit of ${Math.round(max / (1024 * 1024))} MB; send the files in several requests`, {
    field: 'file',
  });
}

function tooLarge(max: number) {
  return new AppError('payload_too_large', `The file exceeds the upload limit of ${Math.round(max / (1024 * 1024))} MB`, { field: 'file' });
}

/** A yes/no form field (`replace=true`): absent, empty or "false" is false, "true" is true, anything else is refused. */
export function booleanField(value: FormDataEntryValue | string | null | undefined, name: string): boolean {
  if (value === undefined || value === null || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new AppError('invalid_input', `"${name}" must be true or false`, { field: name });
}
