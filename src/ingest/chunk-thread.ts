/**
 * Chunking a big document is synchronous work: 14 MB of text takes ~0.6 s on a quiet machine and 1.3 s
 * under load. In the ingestion worker's thread it also stops that thread's other job. On the embedded
 * database, if that job is inside a transaction, it holds the one session every connection shares:
 * another organisation's `GET /api/kbs` waited 740 ms for it under `npm run bench -- abuse hostile`. So a document of
 * CHUNK_THREAD_FROM_CHARS or more is chunked in a thread of its own, at nice 10 like the PDF threads
 * (it holds no session and no lock), which ends when it has answered and takes its heap with it. Not a
 * thread kept for reuse like those (shared-thread.ts): a second big document would find it busy and be
 * chunked here, and the attack that showed the wait uploads several at once.
 *
 * Same chunks as chunking here: the thread runs the same functions on a structured clone. A
 * PermanentIngestError keeps its code and message. A thread that fails to start or dies chunks here, as before.
 */
import { Worker } from 'node:worker_threads';
import { THREAD_BOOT, threadEntry } from '../repo-root';
import { chunkDocument } from './chunker';
import { collapseDegenerateText } from './degenerate';
import { dropRepeatedPassages } from './repeated-passages';
import { fromThreadFailure, type ThreadFailure } from './thread-failure';
import type { Chunk, ParsedDocument } from './types';

/** Below this much text, chunking takes under ~50 ms: not worth a thread's start. */
export const CHUNK_THREAD_FROM_CHARS = 1_000_000;

export type FromChunkThread = { chunks: Chunk[] } | { failed: ThreadFailure };

/**
 * Repeats collapsed and wordless text refused (degenerate.ts), then chunked, each passage once
 * (repeated-passages.ts): the passages a parsed document is stored as.
 */
export function chunkParsed(parsed: ParsedDocument): Chunk[] {
  return dropRepeatedPassages(chunkDocument(collapseDegenerateText(parsed)));
}

/** chunkParsed, in a thread of its own when the document is big; `onThreadFailed` hears of a thread that ended without answering. */
export async function chunkParsedOffThread(parsed: ParsedDocument, onThreadFailed?: (exitCode: number) => void): Promise<Chunk[]> {
  const chars = parsed.sections.reduce((n, s) => n + s.text.length, 0);
  if (chars < CHUNK_THREAD_FROM_CHARS) return chunkParsed(parsed);
  const { answer, exitCode } = await inThread(parsed);
  if (!answer) {
    onThreadFailed?.(exitCode);
    return chunkParsed(parsed);
  }
  if ('chunks' in answer) return answer.chunks;
  throw fromThreadFailure(answer.failed);
}

/** The thread's answer, or null when it ended without one. */
function inThread(parsed: ParsedDocument): Promise<{ answer: FromChunkThread | null; exitCode: number }> {
  return new Promise((resolve) => {
    const thread = new Worker(THREAD_BOOT, { workerData: { entry: threadEntry('src/ingest/chunk.worker.ts') } });
    let answer: FromChunkThread | null = null;
    thread.once('message', (message: FromChunkThread) => {
      answer = message;
      void thread.terminate();
    });
    // A failure is followed by 'exit'.
    thread.on('error', () => {});
    thread.once('exit', (exitCode) => resolve({ answer, exitCode }));
    thread.postMessage(parsed);
  });
}
