/**
 * Re-crawl part of the ingestion benchmark: the shared 101-page site (PCRE2's manual) served on
 * 127.0.0.1 by the crawler tests' fixture server, crawled once through `npm start`, then 3 pages
 * changed and 2 removed, then "recrawl now". Counts the chunk rows before and after (PostgreSQL),
 * so what was deleted and inserted is seen directly, not taken from the document's own report.
 */
import { startFixtureServer } from '../../test/ingest/crawl-fixture-server';
import { getDoc, newKb, seconds, startBenchServer, waitAll, type BenchServer } from './ingest-server';

const CHANGED = ['pcre2api.html', 'pcre2grep.html', 'pcre2syntax.html'];
const REMOVED = ['pcre2demo.html', 'pcre2perform.html'];

const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

async function chunkRows(b: BenchServer, id: string) {
  const { rows } = await b.sql!.query<{ id: string; url: string }>('select id, url from chunks where document_id = $1', [id]);
  return rows;
}

export async function recrawl(): Promise<void> {
  const site = await startFixtureServer();
  const b = await startBenchServer('postgres', { CRAWL_ALLOW_PRIVATE: 'true' });
  try {
    const kbId = await newKb(b, 'Site');
    const t0 = performance.now();
    const res = await fetch(`${b.server.url}/api/ingest/url`, {
      method: 'POST',
      headers: { 'x-api-key': b.key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.origin}/index.html`, kb_id: kbId, max_pages: 500, max_depth: 5, recrawl: 'daily' }),
    });
    const id = ((await res.json()) as { document: { id: string } }).document.id;
    await waitAll(b, kbId, [id]);
    const firstMs = performance.now() - t0;
    const first = await getDoc(b, kbId, id);
    const before = await chunkRows(b, id);

    for (const f of CHANGED) site.overrides.set(`/${f}`, page(`Changed ${f}`, `<p>FRESH-CONTENT of ${f}: the manual was rewritten today.</p><p><a href="/index.html">home</a></p>`));
    for (const f of REMOVED) site.overrides.set(`/${f}`, null);
    site.notModified.length = 0;
    const requestsBefore = site.requests.length;

    const t1 = performance.now();
    const now = await fetch(`${b.server.url}/api/kbs/${kbId}/documents/${id}/recrawl`, { method: 'POST', headers: { 'x-api-key': b.key, 'content-type': 'application/json' }, body: '{}' });
    if (now.status !== 202) throw new Error(`recrawl: ${now.status} ${await now.text()}`);
    let second = first;
    while (second.last_crawled_at === first.last_crawled_at) {
      if (performance.now() - t1 > 10 * 60_000) throw new Error('re-crawl did not finish in 10 min');
      await new Promise((r) => setTimeout(r, 100));
      second = await getDoc(b, kbId, id);
    }
    const recrawlMs = performance.now() - t1;
    const after = await chunkRows(b, id);

    const urlOf = (f: string) => `${site.origin}/${f}`;
    const afterIds = new Set(after.map((c) => c.id));
    const beforeIds = new Set(before.map((c) => c.id));
    const deleted = before.filter((c) => !afterIds.has(c.id));
    const inserted = after.filter((c) => !beforeIds.has(c.id));
    const count = (rows: Array<{ url: string }>, files: string[]) => rows.filter((c) => files.map(urlOf).includes(c.url)).length;
    const others = (rows: Array<{ url: string }>) => rows.filter((c) => ![...CHANGED, ...REMOVED].map(urlOf).includes(c.url)).length;
    const c = second.last_crawl_changes!;

    console.log(`\nre-crawl of the shared site (${first.pages} pages, ${before.length} chunks; first crawl ${seconds(firstMs)} through npm start on PostgreSQL)`);
    console.log(`changed ${CHANGED.join(', ')}; removed ${REMOVED.join(', ')}`);
    console.table([
      {
        're-crawl s': +(recrawlMs / 1000).toFixed(1),
        'pages re-embedded': c.added + c.changed,
        'pages removed': c.removed,
        'pages unchanged': c.unchanged,
        'answered 304': site.notModified.length,
        'requests to site': site.requests.length - requestsBefore,
      },
    ]);
    console.table([
      { chunks: 'deleted', total: deleted.length, 'of the 2 removed pages': count(deleted, REMOVED), 'of the 3 changed pages': count(deleted, CHANGED), 'of other pages': others(deleted) },
      { chunks: 'inserted', total: inserted.length, 'of the 2 removed pages': count(inserted, REMOVED), 'of the 3 changed pages': count(inserted, CHANGED), 'of other pages': others(inserted) },
    ]);
    console.log(`chunks of the 2 removed pages before: ${count(before, REMOVED)}; document after: ${second.pages} pages, ${second.chunk_count} chunks, status ${second.status}`);
  } finally {
    await b.stop();
    await site.close();
  }
}
