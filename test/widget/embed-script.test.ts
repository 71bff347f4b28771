/** GET /embed/widget.js and its lazily loaded panel: headers, validation, compression, size budget. */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const get = (path: string, headers: Record<string, string> = {}) => t.app.fetch(new Request(`http://groundwork.test${path}`, { headers }));

/** 25 KB gzipped for what loads before the first click (widget.js only). */
const BUDGET_GZIP_BYTES = 25 * 1024;

describe('GET /embed/widget.js', () => {
  it('is JavaScript, loadable from any site, strictly typed and cacheable with validation', async () => {
    const res = await get('/embed/widget.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/);
    const body = await res.text();
    expect(body).toMatch(/groundwork-chat/);
    expect(body).not.toMatch(/x-api-key/i);

    const again = await get('/embed/widget.js', { 'if-none-match': res.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(res.headers.get('etag'));
    expect((await get('/embed/widget.js', { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('is served compressed when accepted, within the 25 KB gzip budget', async () => {
    const plain = Buffer.from(await (await get('/embed/widget.js')).arrayBuffer());
    const gz = await get('/embed/widget.js', { 'accept-encoding': 'gzip, deflate' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const gzBytes = Buffer.from(await gz.arrayBuffer());
    expect(gunzipSync(gzBytes).equals(plain)).toBe(true);
    expect(gzBytes.length).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
    expect(gz.headers.get('etag')).toMatch(/-gzip"$/);

    const br = await get('/embed/widget.js', { 'accept-encoding': 'gzip, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    const refused = await get('/embed/widget.js', { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers.get('content-encoding')).toBeNull();
  });

  it('names its panel by content hash; the versioned panel is immutable', async () => {
    const loader = await (await get('/embed/widget.js')).text();
    const name = /widget-panel\.js\?v=([\w-]+)/.exec(loader);
    expect(name).not.toBeNull();
    const panel = await get(`/embed/${name![0]}`);
    expect(panel.status).toBe(200);
    expect(panel.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(panel.headers.get('access-control-allow-origin')).toBe('*');
    expect(panel.headers.get('cache-control')).toMatch(/immutable/);
    expect(await panel.text()).toMatch(/export\s*\{/);
    expect((await get('/embed/widget-panel.js?v=old')).headers.get('cache-control')).not.toMatch(/immutable/);
  });

  it('answers HEAD, and 404s other files', async () => {
    const head = await t.app.fetch(new Request('http://groundwork.test/embed/widget.js', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBeTruthy();
    expect((await get('/embed/other.js')).status).toBe(404);
    expect((await get('/embed/../package.json')).status).toBe(404);
  });
});
