/**
 * A long PDF is read by two threads: pdf.js is synchronous JavaScript, ~10 ms of CPU a page, and
 * reading the 619-page PDF's text was 2/3 of its time to ready once its vectors no longer waited for
 * the HNSW index (docs/performance.md, ingestion). The parsing thread reads the first part of the
 * pages while a helper thread opens its own copy of the file and reads the rest; the parsing thread
 * then builds lines and paragraphs from every page in order, as before, so the result is the same
 * (test/ingest/parse-pdf.test.ts; every PDF of 100 pages or more in the shared corpora, measured).
 *
 * One helper per process, started on first use and ended after a minute idle: a new thread compiles
 * pdf.js afresh, and a cold one was slower than the parsing thread on a 150-page filing. A parse that
 * finds it busy (another PDF being read) reads all its pages itself. Whatever the helper does not
 * deliver (it failed to start, died, or a page failed there) the parser reads itself or counts as
 * failed, as it would have without the helper; a parse that stops early ends the thread.
 */
import { threadEntry } from '../repo-root';
import { SharedThread, type ThreadLease } from './shared-thread';

/** How pdf.js opens a file, in either thread. */
export const PDF_OPEN_OPTIONS = { verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false };

/** Below this many pages a second thread is not worth the hand-over (and pdf.js opening the file twice). */
export const TWO_THREADS_FROM_PAGES = 100;
/** The parsing thread's share of the pages: it also builds the lines of all of them. */
const PARSING_THREAD_SHARE = 0.45;

/**
 * pdf.js names fonts by the order a document instance loads them (`g_d0_f3`), so the same name in
 * the two threads may be two fonts. The helper's are prefixed: unmapped glyphs are told apart by
 * font (pdf-ligatures.ts) and must not be merged across fonts.
 */
export const HELPER_FONT_PREFIX = 'helper:';

/** The fields of pdf.js's TextItem the parser reads. */
export type TextRunData = { str: string; dir: string; width: number; height: number; transform: number[]; hasEOL: boolean; fontName: string };
export type PageRuns = { page: number; items: TextRunData[] } | { page: number; error: string };
export type ToPagesHelper = { id: number; bytes: Uint8Array; from: number; to: number };
export type FromPagesHelper = ({ id: number } & PageRuns) | { id: number; done: true };

const helperThread = new SharedThread<ToPagesHelper, FromPagesHelper>(threadEntry('src/ingest/pdf-pages.worker.ts'));

/** The first page the helper reads, or null when one thread reads them all. */
export function helperFrom(pages: number): number | null {
  return pages >= TWO_THREADS_FROM_PAGES ? Math.ceil(pages * PARSING_THREAD_SHARE) + 1 : null;
}

/** Pages `from`..`to` read by the helper, or null when it is busy with another PDF. */
export function readPagesInHelper(bytes: Uint8Array, from: number, to: number): PagesRead | null {
  const read = new PagesRead();
  const lease = helperThread.lease({ onMessage: (message) => read.deliver(message), onExit: () => read.end() });
  if (!lease) return null;
  read.lease = lease;
  lease.post({ bytes, from, to });
  return read;
}

export class PagesRead {
  /** Set by readPagesInHelper, once the helper is this read's. */
  lease: ThreadLease<ToPagesHelper> | null = null;
  private readonly received = new Map<number, PageRuns>();
  private waiter: { page: number; resolve: (runs: PageRuns | null) => void } | null = null;
  private gone = false;
  private done = false;

  /** Page `page`'s runs, or null when the helper ended without delivering it. Pages are asked in order. */
  page(page: number): Promise<PageRuns | null> {
    const runs = this.received.get(page);
    if (runs) {
      this.received.delete(page);
      return Promise.resolve(runs);
    }
    if (this.gone) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiter = { page, resolve }));
  }

  /**
   * The parse is over. A helper that finished this file waits for the next one (ended after a minute
   * idle); one still reading it is ended, since it cannot be interrupted mid-file.
   */
  async release(): Promise<void> {
    this.received.clear();
    this.end();
    if (this.done) this.lease?.release();
    else await this.lease?.end();
  }

  /** A message of the helper about this read. */
  deliver(message: FromPagesHelper): void {
    if ('done' in message) {
      this.done = true;
      this.end();
    } else if (this.waiter?.page === message.page) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve(message);
    } else {
      this.received.set(message.page, message);
    }
  }

  /** No more pages will come. */
  end(): void {
    this.gone = true;
    this.waiter?.resolve(null);
    this.waiter = null;
  }
}
