/**
 * Websites kept fresh, end to end on the local crawl fixture (the 101-page PCRE2 manual): a
 * re-crawl asks conditionally, re-embeds only the changed pages, removes the chunks of pages that
 * are gone, records what changed and when it runs next; "recrawl now" through REST, GraphQL and
 * tRPC; the cron task queues documents that are due.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentId } from '../../src/ids';
import { enqueueDueRecrawls } from '../../src/services/documents/recrawl-document';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { SITE_HTML_FILES, startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';

let t: TestApp;
let site: FixtureServer;
beforeAll(async () => {
  t = await createTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true' } });
  site = await startFixtureServer();
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

describe('re-crawl', () => {
  it('re-embeds only changed pages, drops vanished ones, and stays answerable', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const api = restClient(t.app, api_key);
    const kbId: string = (await api.post('/api/kbs', { name: 'Site' })).body.kb.id;
    const res = await api.post('/api/ingest/url', { url: `${site.origin}/index.html`, kb_id: kbId, max_pages: 500, max_depth: 5, recrawl: 'daily' });
    expect(res.status).toBe(202);
    expect(res.body.document).toMatchObject({ recrawl: 'daily', last_crawled_at: null });
    const id: string = res.body.document.id;
    await runQueuedJobs(t);
    const first = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    // The 101 HTML pages and the manual's two linked .txt files.
    const total: number = first.pages;
    expect(total).toBeGreaterThanOrEqual(SITE_HTML_FILES.length);
    expect(first).toMatchObject({ status: 'ready', last_crawl_changes: { added: total, changed: 0, removed: 0, unchanged: 0 } });
    expect(Date.parse(first.next_crawl_at) - Date.parse(first.last_crawled_at)).toBe(24 * 3600 * 1000);

    const changed = ['pcre2api.html', 'pcre2grep.html', 'pcre2syntax.html'];
    const removed = ['pcre2demo.html', 'pcre2perform.html'];
    for (const f of changed) site.overrides.set(`/${f}`, page(`Changed ${f}`, `<p>FRESH-CONTENT of ${f}: the manual was rewritten today.</p><p><a href="/index.html">home</a></p>`));
    for (const f of removed) site.overrides.set(`/${f}`, null);
    const removedUrls = removed.map((f) => `${site.origin}/${f}`);
    const before = await t.db.selectFrom('chunks').select(['id', 'url']).where('document_id', '=', id as DocumentId).execute();
    const keptIds = new Set(before.filter((c) => !removedUrls.includes(c.url!) && !changed.some((f) => c.url === `${site.origin}/${f}`)).map((c) => c.id));
    expect(before.some((c) => removedUrls.includes(c.url!))).toBe(true);

    site.notModified.length = 0;
    const now = await api.post(`/api/kbs/${kbId}/documents/${id}/recrawl`, {});
    expect(now.status).toBe(202);
    expect(now.body.document.status).toBe('ready');
    await runQueuedJobs(t);
    const second = (await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document;
    expect(second).toMatchObject({ status: 'ready', pages: total - 2, last_crawl_changes: { added: 0, changed: 3, removed: 2, unchanged: total - 5 } });
    // Unchanged pages were asked for conditionally and answered 304.
    expect(site.notModified.length).toBe(total - 5);
    const after = await t.db.selectFrom('chunks').select(['id', 'url', 'text']).where('document_id', '=', id as DocumentId).execute();
    expect(after.some((c) => removedUrls.includes(c.url!))).toBe(false);
    // Chunks of unchanged pages are the very same rows: nothing re-embedded there.
    expect(after.filter((c) => keptIds.has(c.id)).length).toBe(keptIds.size);
    const fresh = after.filter((c) => c.text.includes('FRESH-CONTENT'));
    expect(new Set(fresh.map((c) => c.url))).toEqual(new Set(changed.map((f) => `${site.origin}/${f}`)));
    expect(second.chunk_count).toBe(after.length);

    // Same operation through GraphQL and tRPC; the schedule can be changed.
    const gql = await graphqlClient(t.app, api_key)(`mutation($kbId: ID!, $id: ID!) { recrawlDocument(kbId: $kbId, id: $id) { id recrawl lastCrawlChanges { changed removed } } }`, { kbId, id });
    expect(gql.body.data.recrawlDocument).toEqual({ id, recrawl: 'daily', lastCrawlChanges: { changed: 3, removed: 2 } });
    const tr = await trpcClient(t.app, api_key).mutation('documents.recrawl', { kb_id: kbId, id });
    expect(tr.body.result.data.document.id).toBe(id);
    await runQueuedJobs(t);
    expect((await api.get(`/api/kbs/${kbId}/documents/${id}`)).body.document.last_crawl_changes).toEqual({ added: 0, changed: 0, removed: 0, unchanged: total - 2 });

    const weekly = await api.raw(`/api/kbs/${kbId}/documents/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recrawl: 'weekly' }) });
    const w = (await weekly.json()) as any;
    expect(w.document.recrawl).toBe('weekly');
    expect(Date.parse(w.document.next_crawl_at) - Date.parse(w.document.last_crawled_at)).toBe(7 * 24 * 3600 * 1000);

    // The cron task queues it once it is due.
    expect(await enqueueDueRecrawls(t.deps, new Date(Date.now() + 8 * 24 * 3600 * 1000))).toBeGreaterThanOrEqual(1);
    expect(await enqueueDueRecrawls(t.deps, new Date())).toBe(0);
  }, 300_000);
});
