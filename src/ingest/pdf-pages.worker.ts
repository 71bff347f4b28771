/**
 * The PDF helper thread (pdf-pages-thread.ts): for each request it opens its own copy of the file
 * and posts the text runs of pages `from`..`to`, one message a page, as pdf.js gives them (font
 * names marked as this thread's), then a `done`.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';
import './pdfjs-node';
import { HELPER_FONT_PREFIX, PDF_OPEN_OPTIONS, type FromPagesHelper, type ToPagesHelper } from './pdf-pages-thread';

/**
 * The helper runs at nice 10 (Linux keeps a nice value per thread): on an idle machine it still has
 * a core to itself, and when the web thread, the database's thread or the parsing thread want the
 * core, they get it first. It holds nothing another thread waits for (no database session, no
 * lock), so a lower priority cannot invert into anyone else's wait, as it did for the whole inline
 * worker (docs/performance.md, stop 36).
 */
const HELPER_NICE = 10;
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), HELPER_NICE);
} catch {
  // Not Linux, or no /proc: the helper runs at the process's priority.
}

const post = (message: FromPagesHelper) => parentPort!.postMessage(message);
const errorName = (err: unknown) => (err && typeof err === 'object' && 'name' in err ? String(err.name) : 'Error');

async function read({ id, bytes, from, to }: ToPagesHelper): Promise<void> {
  const pdf = await getDocumentProxy(bytes, PDF_OPEN_OPTIONS);
  try {
    for (let page = from; page <= to; page++) {
      try {
        const proxy = await pdf.getPage(page);
        const { items } = await proxy.getTextContent();
        proxy.cleanup();
        const runs = items.flatMap((item) =>
          'str' in item
            ? [{ str: item.str, dir: item.dir, width: item.width, height: item.height, transform: item.transform as number[], hasEOL: item.hasEOL, fontName: `${HELPER_FONT_PREFIX}${item.fontName}` }]
            : [],
        );
        post({ id, page, items: runs });
      } catch (err) {
        post({ id, page, error: errorName(err) });
      }
    }
  } finally {
    await pdf.destroy();
  }
}

// One request at a time: the parser asks only while the thread is idle.
parentPort!.on('message', (request: ToPagesHelper) => {
  read(request)
    .catch(() => {})
    .finally(() => post({ id: request.id, done: true }));
});
