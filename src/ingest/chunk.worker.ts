/**
 * The chunking thread (chunk-thread.ts): chunks the one parsed document it is sent and posts the
 * passages, or why the document has none.
 */
import { parentPort } from 'node:worker_threads';
import { chunkParsed, type FromChunkThread } from './chunk-thread';
import { toThreadFailure } from './thread-failure';
import { niceThisThread } from './thread-priority';
import type { ParsedDocument } from './types';

// It holds no session and no lock: only the ingestion job waits for it.
niceThisThread();

parentPort!.once('message', (parsed: ParsedDocument) => {
  let answer: FromChunkThread;
  try {
    answer = { chunks: chunkParsed(parsed) };
  } catch (err) {
    answer = { failed: toThreadFailure(err) };
  }
  parentPort!.postMessage(answer);
});
