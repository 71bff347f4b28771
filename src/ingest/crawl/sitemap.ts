/**
 * Sitemap discovery for seeding a crawl: the `Sitemap:` lines of robots.txt, else /sitemap.xml.
 * Reads XML url sets, sitemap indexes (nested sitemaps, bounded), plain-text sitemaps, and gzip
 * (by magic bytes). Every fetch goes through the SSRF-safe client. Failures are silent: a sitemap
 * only adds seeds, the crawl works without it.
 */
import { gunzipSync } from 'node:zlib';
import type { SafeHttpClient } from './safe-http-client.js';

export interface SitemapDiscoveryOptions {
  client: SafeHttpClient;
  /** Sitemap URLs declared in robots.txt; when empty, `${origin}/sitemap.xml` is tried. */
  declared: string[];
  origin: string;
  /** Called with each page URL found; return false to drop it. Stops once `maxUrls` were kept. */
  accept: (url: URL) => boolean | Promise<boolean>;
  maxUrls: number;
  maxFiles?: number;
  maxBytes: number;
  timeoutMs: number;
  /** Absolute time (ms since epoch) after which no further sitemap file is fetched. */
  deadline?: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXmlText(text: string): string {
  return text
    .replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, '$1')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
      if (entity[0] === '#') {
        const code = entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[entity.toLowerCase()] ?? whole;
    })
    .trim();
}

/** Locations of a sitemap document: { nested } for an index, { pages } for a url set or text file. */
export function parseSitemap(text: string): { nested: string[]; pages: string[] } {
  const locs = (scope: RegExp): string[] =>
    [...text.matchAll(scope)].map((m) => /<loc>([\s\S]*?)<\/loc>/i.exec(m[1] ?? '')?.[1]).filter((l): l is string => !!l).map(decodeXmlText);
  if (/<sitemapindex[\s>]/i.test(text)) return { nested: locs(/<sitemap[\s>]([\s\S]*?)<\/sitemap>/gi), pages: [] };
  if (/<urlset[\s>]/i.test(text)) return { nested: [], pages: locs(/<url[\s>]([\s\S]*?)<\/url>/gi) };
  if (/^\s*</.test(text)) return { nested: [], pages: [] };
  // Plain-text sitemap: one absolute URL per line.
  return {
    nested: [],
    pages: text.split(/\r?\n/).map((line) => line.trim()).filter((line) => /^https?:\/\//i.test(line)),
  };
}

export async function discoverSitemapUrls(options: SitemapDiscoveryOptions): Promise<URL[]> {
  const maxFiles = options.maxFiles ?? 10;
  const queue = options.declared.length > 0 ? [...options.declared] : [`${options.origin}/sitemap.xml`];
  const visited = new Set<string>();
  const found: URL[] = [];
  const seen = new Set<string>();

  while (queue.length > 0 && visited.size < maxFiles && found.length < options.maxUrls) {
    if (options.deadline !== undefined && Date.now() >= options.deadline) break;
    const location = queue.shift()!;
    if (visited.has(location)) continue;
    visited.add(location);

    let text: string;
    try {
      const response = await options.client.fetch(location, {
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
        accept: 'application/xml,text/xml,text/plain;q=0.9,*/*;q=0.1',
        canFollowRedirect: null,
      });
      if (response.status < 200 || response.status >= 300) continue;
      let body = response.body;
      if (body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body, { maxOutputLength: options.maxBytes });
      text = body.toString('utf8');
    } catch {
      continue;
    }

    const { nested, pages } = parseSitemap(text);
    for (const next of nested) {
      try {
        const url = new URL(next, location);
        if (url.protocol === 'http:' || url.protocol === 'https:') queue.push(url.href);
      } catch {
        // ignore malformed entries
      }
    }
    for (const page of pages) {
      let url: URL;
      try {
        url = new URL(page, location);
      } catch {
        continue;
      }
      url.hash = '';
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      if (!(await options.accept(url))) continue;
      found.push(url);
      if (found.length >= options.maxUrls) break;
    }
  }
  return found;
}
