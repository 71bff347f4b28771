/**
 * The one body reader every transport shares. Before any handler runs (REST, multipart uploads,
 * GraphQL, tRPC, the widget), the request's body is replaced by a stream that counts bytes as they
 * arrive and fails once they pass the limit: MAX_UPLOAD_BYTES (plus a small envelope) for
 * multipart/form-data, MAX_JSON_BYTES for anything else. A declared Content-Length over the limit
 * is refused before a byte is read. Nothing here buffers the body, so the limit holds whatever the
 * reader downstream does with it (yoga and tRPC read whole bodies, busboy streams).
 *
 * Readers report a failed stream in their own words (hono's JSON validator says "malformed JSON",
 * yoga a GraphQL error), so once the limit has been passed the response is replaced by the 413.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { AppError, errorBody } from '../errors';

/** Room for the multipart boundaries, part headers and the small text fields around the file. */
export const MULTIPART_ENVELOPE_BYTES = 64 * 1024;

export type BodyLimits = { maxJsonBytes: number; maxUploadBytes: number };

export function bodyLimitFor(headers: Headers, limits: BodyLimits): number {
  return /^multipart\/form-data\b/i.test(headers.get('content-type') ?? '') ? limits.maxUploadBytes + MULTIPART_ENVELOPE_BYTES : limits.maxJsonBytes;
}

export function tooLarge(maxBytes: number): AppError {
  const size = maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / (1024 * 1024))} MB` : `${maxBytes} bytes`;
  return new AppError('payload_too_large', `The request body exceeds the limit of ${size}`);
}

/**
 * Wraps a body stream so that reading past `maxBytes` fails with a 413 AppError. The source is
 * not cancelled: cancelling would tear down the socket before the 413 is written; the HTTP server
 * drains (and then closes) what the client still sends.
 */
export function countedStream(body: ReadableStream<Uint8Array>, maxBytes: number, onExceeded: () => void, onEnd: () => void = () => {}): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        onEnd();
        return controller.close();
      }
      seen += value.byteLength;
      if (seen > maxBytes) {
        onExceeded();
        reader.releaseLock();
        return controller.error(tooLarge(maxBytes));
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

export function limitBodies(limits: BodyLimits): MiddlewareHandler {
  return async (c: Context, next) => {
    const request = c.req.raw;
    if (!request.body) return next();
    const maxBytes = bodyLimitFor(request.headers, limits);
    const declared = Number(request.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) return refusal(maxBytes, await drain(request.body));
    let exceeded = false;
    let ended = false;
    const body = countedStream(request.body, maxBytes, () => (exceeded = true), () => (ended = true));
    c.req.raw = new Request(request, { body, duplex: 'half' } as RequestInit);
    await next();
    if (exceeded) {
      const drained = await drain(request.body);
      const answer = refusal(maxBytes, drained);
      const length = answer.headers.get('content-length')!;
      c.res = answer;
      // Hono's `c.res =` keeps the replaced answer's headers (CORS ones are wanted): GraphQL's and
      // tRPC's Content-Length described their own error, so the client waited for bytes that never
      // came and saw the socket close instead of the 413 (issue 26).
      c.res.headers.set('content-length', length);
      c.res.headers.delete('content-encoding');
      if (drained) c.res.headers.delete('connection');
    }
    // Answered before its body was read (a 401, a route that takes none): the node adapter drains
    // the rest for 500 ms at most and then drops the socket, which a keep-alive client may already
    // be reusing for its next request ("other side closed"). Saying so lets the client open a new one.
    else if (!ended) c.header('connection', 'close');
  };
}

/**
 * How much of an oversized body is read and dropped before the 413 is sent. A server that answers
 * and closes while the client is still sending makes the client's kernel see a reset, and most
 * clients (fetch, curl, requests) then report ECONNRESET/EPIPE instead of the 413 they were sent
 * (a 150 MB upload never saw it). Reading the rest first keeps nothing (drain) and takes about
 * 0.2 s per 150 MB on loopback (600 MB: 0.8 s); past these bounds the 413 goes out at once and the
 * client may see the reset after all.
 */
export const DRAIN_MAX_BYTES = 1024 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;

/**
 * Reads what is left of a body, dropping it; true when it reached the end within the bounds.
 *
 * The time bound releases the reader, which rejects a read still pending. It used to race every
 * read against one timeout promise: each race left a reaction on that promise holding the chunk
 * it settled with, so nothing read was freed until the drain ended, and a 600 MB body held 600 MB
 * (issue 26; test/http/body-limits.test.ts).
 */
export async function drain(body: ReadableStream<Uint8Array>, bounds = { maxBytes: DRAIN_MAX_BYTES, maxMs: DRAIN_MAX_MS }): Promise<boolean> {
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch {
    return false; // still locked by a reader that did not let go
  }
  const release = () => {
    try {
      reader.releaseLock();
    } catch {
      // already released
    }
  };
  const timer = setTimeout(release, bounds.maxMs);
  let seen = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return true;
      seen += next.value.byteLength;
      if (seen > bounds.maxBytes) return false;
    }
  } catch {
    return false; // the client went away, or the time bound released the reader
  } finally {
    clearTimeout(timer);
    release();
  }
}

/**
 * With the whole body read the connection stays usable; otherwise the server closes it after the
 * answer, and clients must not reuse it.
 */
function refusal(maxBytes: number, drained = false): Response {
  const body = JSON.stringify(errorBody(tooLarge(maxBytes)));
  return new Response(body, {
    status: 413,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...(drained ? {} : { connection: 'close' }) },
  });
}
