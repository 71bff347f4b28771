/**
 * The niced PDF parse thread (pdf-parse-thread.ts): parses one PDF at a time with parsePdf, posting
 * its progress, then the parsed document or why it failed.
 */
import { parentPort } from 'node:worker_threads';
import { parsePdf } from './parse-pdf';
import type { FromParseThread, ToParseThread } from './pdf-parse-thread';
import { toThreadFailure } from './thread-failure';
import { niceThisThread } from './thread-priority';

// It holds no session and no lock: only the ingestion job waits for it.
niceThisThread();

const post = (message: FromParseThread) => parentPort!.postMessage(message);

parentPort!.on('message', ({ id, bytes, ocrMaxPages }: ToParseThread) => {
  parsePdf(bytes, { ocrMaxPages, onProgress: (progress) => post({ id, progress }) }).then(
    (parsed) => post({ id, parsed }),
    (err: unknown) => post({ id, failed: toThreadFailure(err) }),
  );
});
