/**
 * Static server for the crawler tests: serves the PCRE2 HTML manual (../shared/data/site, 101
 * interlinked pages) on 127.0.0.1:0, plus test-only routes under /extra/ and a configurable
 * robots.txt / sitemap. Every request is logged so tests can assert what was (not) fetched.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const SITE_DIR = fileURLToPath(new URL('../../../shared/data/site/', import.meta.url));
export const SITE_HTML_FILES = readdirSync(SITE_DIR).filter((f) => f.endsWith('.html')).sort();

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

export interface FixtureOptions {
  /** robots.txt body (use {origin} for the server origin); undefined = 404. */
  robotsTxt?: string;
  /** Serve /sitemap.xml listing every HTML page. Default true. */
  sitemap?: boolean;
}

export interface FixtureServer {
  origin: string;
  port: number;
  /** Request paths (with query) in arrival order. */
  requests: string[];
  /** Site pages replaced (HTML) or removed (null) by path, e.g. '/pcre2api.html'; may change any time. */
  overrides: Map<string, string | null>;
  /** Paths answered 304 Not Modified to a matching If-None-Match. */
  notModified: string[];
  close(): Promise<void>;
}

const BOILERPLATE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Widget guide | ACME</title></head>
<body>
<header class="site-header"><a href="/extra/hub.html">ACME</a> <span>HEADER-SENTINEL tagline</span></header>
<nav class="menu"><ul><li><a href="/index.html">NAV-SENTINEL home</a></li><li><a href="/pcre2.html">NAV-SENTINEL intro</a></li></ul></nav>
<div id="cookie-banner" class="cookie-consent">We use COOKIE-SENTINEL cookies to improve your experience. <a href="/privacy">Privacy</a> <button>Accept all</button></div>
<main>
  <article>
    <h1>Widget guide</h1>
    <p>Widgets are small reusable components. This guide explains how to install and configure a widget in a
    production deployment, with the trade-offs of each option spelled out.</p>
    <h2>Installation</h2>
    <p>Run the installer from the release page. It checks prerequisites and copies the binaries into place.</p>
    <pre>widget install --prefix /opt/widget
  --verbose</pre>
    <h3>On Linux</h3>
    <p>Use the distribution package when one exists; it receives security updates automatically.</p>
    <h2>Configuration</h2>
    <p>Settings live in widget.toml. Every key has a safe default, so an empty file is a valid configuration.</p>
  </article>
  <aside>ASIDE-SENTINEL related articles</aside>
</main>
<footer>FOOTER-SENTINEL copyright ACME</footer>
<script>console.log('SCRIPT-SENTINEL')</script>
</body></html>`;

/**
 * 20 MiB of spaces, gzipped to about 20 KB. Compressed once: compressing it per request blocked the
 * test process's event loop long enough, on a loaded machine, for the crawler's 400 ms page timeout
 * to fire before the decompressed-size limit could.
 */
const GZIP_BOMB = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}

function sitemapXml(origin: string, files: string[]): string {
  const urls = files.map((f) => `<url><loc>${origin}/${f}</loc></url>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}

export async function startFixtureServer(options: FixtureOptions = {}): Promise<FixtureServer> {
  const requests: string[] = [];
  const overrides = new Map<string, string | null>();
  const notModified: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let origin = '';

  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    requests.push(`${url.pathname}${url.search}`);
    const host = `http://${req.headers.host ?? origin.slice('http://'.length)}`;
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
      res.end(body);
    };
    const html = (body: string): void => send(200, 'text/html; charset=utf-8', body);
    const path = url.pathname;

    if (path === '/robots.txt') {
      if (options.robotsTxt === undefined) return send(404, 'text/plain', 'not found');
      return send(200, 'text/plain', options.robotsTxt.replaceAll('{origin}', host));
    }
    if (path === '/sitemap.xml' && options.sitemap !== false) {
      return send(200, 'application/xml', sitemapXml(host, SITE_HTML_FILES));
    }
    if (path === '/sitemap_index.xml') {
      return send(200, 'application/xml', `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${host}/sitemaps/pages.xml.gz</loc></sitemap></sitemapindex>`);
    }
    if (path === '/sitemaps/pages.xml.gz') {
      return send(200, 'application/gzip', gzipSync(sitemapXml(host, SITE_HTML_FILES)));
    }

    if (path === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      return void res.end();
    }
    if (path.startsWith('/extra/')) {
      switch (path) {
        case '/extra/boilerplate.html':
          return html(BOILERPLATE_PAGE);
        case '/extra/hub.html':
          return html(
            page(
              'Hub',
              `<p>Links to pages that work and pages that do not.</p><ul>
              <li><a href="/extra/boilerplate.html">boilerplate</a></li>
              <li><a href="/extra/gzipped.html">gzipped</a></li>
              <li><a href="/extra/latin1.html">latin-1</a></li>
              <li><a href="/extra/big.html">big</a></li>
              <li><a href="/extra/big-chunked.html">big chunked</a></li>
              <li><a href="/extra/bomb.html">gzip bomb</a></li>
              <li><a href="/extra/slow.html">slow</a></li>
              <li><a href="/extra/drip.html">drip</a></li>
              <li><a href="/extra/image.png">image</a></li>
              <li><a href="/extra/missing.html">missing</a></li>
              <li><a href="/extra/error.html">server error</a></li>
              <li><a href="/extra/noindex.html">noindex</a></li>
              <li><a href="/private/secret.html">private</a></li>
              <li><a href="/redirect?to=/extra/boilerplate.html">redirect to boilerplate</a></li>
              <li><a href="/redirect?to=http://127.0.0.1:9/">redirect to loopback</a></li>
              <li><a href="/redirect?to=http://169.254.169.254/latest/meta-data/">redirect to metadata</a></li>
              <li><a href="/redirect?to=https://elsewhere.example/">redirect off-site</a></li>
              <li><a href="https://elsewhere.example/page">off-site link</a></li>
              <li><a href="mailto:someone@example.com">mail</a></li>
              <li><a href="javascript:alert(1)">js</a></li>
              </ul>`,
            ),
          );
        case '/extra/big.html':
          return html(page('Big', `<p>${'big page '.repeat(300_000)}</p>`));
        case '/extra/big-chunked.html': {
          // No Content-Length: the limit must be enforced while streaming.
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          const chunk = `<p>${'chunked '.repeat(8192)}</p>\n`;
          for (let i = 0; i < 40; i++) res.write(chunk);
          return void res.end('</body></html>');
        }
        case '/extra/bomb.html': {
          res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': GZIP_BOMB.length });
          return void res.end(GZIP_BOMB);
        }
        case '/extra/slow.html':
          // Linked from every page's header through the hub, so full crawls wait for it: 5 s. The
          // slow-links pages (`?n`) take 30 s, far past the bounds the total-timeout and abort tests
          // set, so those bounds hold on a loaded machine.
          return later(url.search ? 30_000 : 5_000, () => html(page('Slow', '<p>finally</p>')));
        case '/extra/drip.html': {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.write('<html><body><p>drip');
          let n = 0;
          const drip = (): void => {
            if (res.destroyed || n++ > 50) return void res.end('</p></body></html>');
            res.write(' drop');
            later(200, drip);
          };
          return later(200, drip);
        }
        case '/extra/image.png':
          return send(200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
        case '/extra/error.html':
          return send(503, 'text/html', page('Unavailable', '<p>try later</p>'));
        case '/extra/noindex.html':
          return html(
            '<html><head><title>No index</title><meta name="robots" content="noindex"></head><body><p>Not for search engines.</p><a href="/extra/boilerplate.html">b</a></body></html>',
          );
        case '/extra/gzipped.html': {
          const body = gzipSync(page('Gzipped', '<p>Compressed content arrives intact.</p>'));
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
          return void res.end(body);
        }
        case '/extra/latin1.html':
          return send(200, 'text/html', Buffer.from(page('Latin', '<p>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e</p>').replace('charset="utf-8"', 'charset="iso-8859-1"'), 'latin1'));
        case '/extra/slow-links.html':
          return html(page('Slow links', Array.from({ length: 12 }, (_, i) => `<a href="/extra/slow.html?${i}">slow ${i}</a>`).join(' ')));
        default: {
          const chain = /^\/extra\/chain\/(\d+)\.html$/.exec(path);
          if (chain) {
            const n = Number(chain[1]);
            const next = n < 8 ? `<p><a href="/extra/chain/${n + 1}.html">next page</a></p>` : '';
            return html(page(`Chain ${n}`, `<p>Chain page number ${n} of the depth test.</p>${next}<p><a href="/extra/chain/0.html">first</a></p>`));
          }
          return send(404, 'text/html', page('Not found', '<p>nothing here</p>'));
        }
      }
    }
    if (path === '/private/secret.html') return html(page('Secret', '<p>robots.txt disallows this page.</p>'));

    const file = path === '/' ? 'index.html' : decodeURIComponent(path.slice(1));
    if (file.includes('/') || file.startsWith('.')) return send(404, 'text/plain', 'not found');
    let body: Buffer;
    const override = overrides.get(`/${file}`);
    if (override === null) return send(404, 'text/html', page('Not found', '<p>nothing here</p>'));
    try {
      body = override !== undefined ? Buffer.from(override) : readFileSync(join(SITE_DIR, file));
    } catch {
      return send(404, 'text/html', page('Not found', '<p>nothing here</p>'));
    }
    // Site pages carry an ETag (of their bytes) and honour If-None-Match, like a real web server.
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    if (req.headers['if-none-match'] === etag) {
      notModified.push(path);
      res.writeHead(304, { etag });
      return void res.end();
    }
    return send(200, TYPES[extname(file)] ?? 'application/octet-stream', body, { etag });
  };

  const server: Server = createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    requests,
    overrides,
    notModified,
    close: () =>
      new Promise<void>((ok) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => ok());
      }),
  };
}
