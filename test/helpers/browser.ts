/**
 * Real-browser testing: Debian's Chromium driven by playwright-core (no browser downloads), the app
 * on a real port, and host pages served from other origins (other ports on 127.0.0.1).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { chromium, type Browser } from 'playwright-core';
import { runMarker } from '../infra/run-cleanup';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Marked as the test run's, so that a stopped run kills it even when this process was killed first. */
export function launchBrowser(): Promise<Browser> {
  const marker = runMarker();
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
      ...(marker ? [marker] : []),
    ],
  });
}

export type Served = { url: string; origin: string; close(): Promise<void> };

function closer(server: Server) {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
}

/** The app's fetch handler on a real HTTP port (what a browser needs). */
export function serveApp(app: { fetch: (req: Request, env?: unknown) => Response | Promise<Response> }): Promise<Served> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      const origin = `http://127.0.0.1:${info.port}`;
      resolve({ url: origin, origin, close: closer(server as Server) });
    }) as Server;
  });
}

/** A static "customer website": `pages` maps a path to its HTML and may be filled after start. */
export async function serveHostPages(): Promise<Served & { page(path: string, html: string): string }> {
  const pages = new Map<string, string>();
  const server = createServer((req, res) => {
    const html = pages.get((req.url ?? '/').split('?')[0]!);
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    origin,
    close: closer(server),
    page(path, html) {
      pages.set(path, html);
      return `${origin}${path}`;
    },
  };
}
