/**
 * The PDF helper thread (pdf-pages-thread.ts): for each request it opens its own copy of the file
 * and posts the text runs of pages `from`..`to`, one message a page, as pdf.js gives them (font
 * names marked as this thread's), then a `done`.
 */
import { parentPort } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';
import './pdfjs-node';
import { niceThisThread } from './thread-priority';
import { HELPER_FONT_PREFIX, PDF_OPEN_OPTIONS, type FromPagesHelper, type ToPagesHelper } from './pdf-pages-thread';

// It holds no session and no lock: only the parse waits for it.
niceThisThread();

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
