/**
 * On the embedded default the ingestion worker is a thread of the web process, so a long PDF's parse
 * (pdf.js, ~10 ms of CPU a page, on two threads from 100 pages) competes for the cores with the web
 * thread, which then answers late: profiled, the web thread waited 10–29 ms for a core up to 11 times
 * a second while the worker thread parsed, and not at all while only the niced helper did
 * (docs/performance.md, the embedded default under ingestion). So a big PDF is parsed in a thread of its own at nice 10, as the
 * helper thread is. The worker thread cannot do it itself: an ordinary user may lower a thread's
 * priority but not raise it back, and the worker must store at full priority, because it then holds
 * the embedded database's session, and a niced thread holding it would make every request wait on it.
 *
 * One parse thread per process, started on first use and ended after a minute idle (a new thread
 * compiles pdf.js afresh). A parse that finds it busy, or a thread that fails, runs in the calling
 * thread, as before. The result is parsePdf's own (structured clone); a PermanentIngestError keeps its
 * code and message.
 */
import { threadEntry } from '../repo-root';
import type { ParsePdfOptions } from './parse-pdf';
import { SharedThread } from './shared-thread';
import { fromThreadFailure, type ThreadFailure } from './thread-failure';
import type { ParsedDocument, ParseProgress } from './types';

/** Smaller PDFs parse in the calling thread: short work, not worth a thread's start. */
export const NICED_PARSE_FROM_BYTES = 1024 * 1024;

export type ToParseThread = { id: number; bytes: Uint8Array; ocrMaxPages?: number };
export type FromParseThread =
  | { id: number; progress: Parameters<ParseProgress>[0] }
  | { id: number; parsed: ParsedDocument }
  | { id: number; failed: ThreadFailure };

const parseThread = new SharedThread<ToParseThread, FromParseThread>(threadEntry('src/ingest/pdf-parse.worker.ts'));

/** The thread ended (or never started) before it answered: the caller parses the PDF itself. */
export class ParseThreadStopped extends Error {
  override readonly name = 'ParseThreadStopped';
  constructor() {
    super('the PDF parse thread stopped before it answered');
  }
}

/** parsePdf in the niced parse thread, or null when it is busy with another PDF. */
export function parsePdfInNicedThread(bytes: Uint8Array, options: Pick<ParsePdfOptions, 'onProgress' | 'ocrMaxPages'>): Promise<ParsedDocument> | null {
  let resolve!: (parsed: ParsedDocument) => void;
  let reject!: (error: Error) => void;
  const parsed = new Promise<ParsedDocument>((onParsed, onFailed) => ((resolve = onParsed), (reject = onFailed)));
  const lease = parseThread.lease({
    onMessage: (message) => {
      if ('progress' in message) return options.onProgress?.(message.progress);
      lease?.release();
      if ('parsed' in message) resolve(message.parsed);
      else reject(fromThreadFailure(message.failed));
    },
    onExit: () => reject(new ParseThreadStopped()),
  });
  if (!lease) return null;
  lease.post({ bytes, ocrMaxPages: options.ocrMaxPages });
  return parsed;
}
