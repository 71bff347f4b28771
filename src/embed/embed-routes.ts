/**
 * /embed/*: the widget script and its lazily loaded panel. Public, cacheable and safe to load from
 * any site: the files carry no secrets (ACAO: *), declare their type strictly (nosniff), allow
 * cross-origin embedding under COEP (CORP: cross-origin), and validate with ETags.
 *
 *   /embed/widget.js          max-age 5 min, then revalidated (If-None-Match -> 304): sites pick up a
 *                             new release within minutes without re-downloading an unchanged file
 *   /embed/widget-panel.js    immutable for a year when requested with the current ?v= hash
 *   /embed/widget-voice.js    the same, for the voice module and its AudioWorklet module; worklets are
 *   /embed/widget-audio.js    fetched in CORS mode, which the ACAO: * answers
 */
import { Hono, type Context } from 'hono';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { loadWidgetAssets, type Encoding, type WidgetAsset } from './widget-assets';

const LOADER_CACHE = 'public, max-age=300, stale-while-revalidate=86400';
const IMMUTABLE = 'public, max-age=31536000, immutable';

export function createEmbedRoutes(config: Pick<Config, 'env'>, logger?: Logger) {
  const app = new Hono();
  app.get('/widget.js', async (c) => send(c, (await loadWidgetAssets(config, logger)).loader, LOADER_CACHE));
  app.get('/widget-panel.js', async (c) => {
    const assets = await loadWidgetAssets(config, logger);
    return send(c, assets.panel, c.req.query('v') === assets.panelVersion ? IMMUTABLE : LOADER_CACHE);
  });
  app.get('/widget-voice.js', async (c) => {
    const assets = await loadWidgetAssets(config, logger);
    return send(c, assets.voice, c.req.query('v') === assets.voiceVersion ? IMMUTABLE : LOADER_CACHE);
  });
  app.get('/widget-audio.js', async (c) => {
    const assets = await loadWidgetAssets(config, logger);
    return send(c, assets.audio, c.req.query('v') === assets.audioVersion ? IMMUTABLE : LOADER_CACHE);
  });
  return app;
}

function pickEncoding(acceptEncoding: string | undefined): Encoding {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : 'identity';
}

function send(c: Context, asset: WidgetAsset, cacheControl: string): Response {
  const encoding = pickEncoding(c.req.header('accept-encoding'));
  const etag = `"${asset.hash}${encoding === 'identity' ? '' : `-${encoding}`}"`;
  const headers: Record<string, string> = {
    'Content-Type': 'text/javascript; charset=utf-8',
    'Cache-Control': cacheControl,
    ETag: etag,
    Vary: 'Accept-Encoding',
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Type-Options': 'nosniff',
  };
  const inm = c.req.header('if-none-match');
  if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) {
    return new Response(null, { status: 304, headers });
  }
  if (encoding !== 'identity') headers['Content-Encoding'] = encoding;
  return new Response(asset.bodies[encoding] as BodyInit, { status: 200, headers });
}
