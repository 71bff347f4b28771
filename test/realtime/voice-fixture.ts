/**
 * The voice gateway for tests: the real app (real KB, real retrieval) on a real port with the
 * gateway on its upgrade, the fake Realtime server as upstream, and a small browser-like client.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import WebSocket from 'ws';
import { expect } from 'vitest';
import { createApp } from '../../src/app';
import type { AppDeps } from '../../src/context';
import type { PlanName } from '../../db/types';
import { attachVoiceGateway, type VoiceGateway } from '../../realtime/voice-gateway';
import type { VoiceLimits } from '../../realtime/limits';
import { startFakeRealtime, type FakeRealtime, type FakeRealtimeScript } from '../fakes/realtime-server';
import { trpcClient } from '../helpers/api-client';
import { createWidgetOrg, createWidgetTestApp, widgetClient, type WidgetOrg } from '../widget/widget-fixture';

export const SHOP = 'https://shop.example.com';

/** Env that makes voice available against the fake (without switching the text answers to OpenAI). */
export function realtimeEnv(fake: Pick<FakeRealtime, 'url' | 'apiKey'>): Record<string, string> {
  return { OPENAI_REALTIME_API_KEY: fake.apiKey, OPENAI_REALTIME_URL: fake.url };
}

export type ServedVoice = { url: string; wsUrl: string; server: Server; gateway: VoiceGateway; close(): Promise<void> };

/** The app's fetch handler and the voice gateway on one real port, as src/server.ts wires them. */
export function serveAppWithVoice(deps: AppDeps, opts: { limits?: Partial<VoiceLimits> } = {}): Promise<ServedVoice> {
  const app = createApp(deps);
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      const url = `http://127.0.0.1:${info.port}`;
      resolve({
        url,
        wsUrl: `ws://127.0.0.1:${info.port}/api/widget/voice`,
        server,
        gateway,
        async close() {
          await gateway.close();
          server.closeAllConnections();
          await new Promise<void>((r) => server.close(() => r()));
        },
      });
    }) as Server;
    const gateway = attachVoiceGateway(server, deps, opts);
  });
}

export async function createVoiceTestApp(opts: { script?: FakeRealtimeScript; limits?: Partial<VoiceLimits>; env?: Record<string, string> } = {}) {
  const fake = await startFakeRealtime({ script: { pace: 0.05, ...opts.script } });
  const t = await createWidgetTestApp({ env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', ...realtimeEnv(fake), ...opts.env } });
  const served = await serveAppWithVoice(t.deps, { limits: opts.limits });
  return {
    t,
    fake,
    served,
    async close() {
      await served.close();
      await fake.close();
      await t.close();
    },
  };
}

/** A Starter organisation (or the given plan) with the Zephyr KB and voice switched on. */
export async function createVoiceOrg(t: Awaited<ReturnType<typeof createWidgetTestApp>>, opts: { plan?: PlanName; voice?: boolean } = {}): Promise<WidgetOrg> {
  const org = await createWidgetOrg(t, { plan: opts.plan ?? 'starter' });
  if (opts.voice !== false && (opts.plan ?? 'starter') !== 'free') {
    const res = await trpcClient(t.app, org.apiKey).mutation('org.updateSettings', { voice_enabled: true });
    expect(res.status).toBe(200);
  }
  return org;
}

export async function widgetToken(t: { app: { fetch: (r: Request) => Response | Promise<Response> } }, org: WidgetOrg, origin = SHOP) {
  return widgetClient(t.app as never, origin).token(org.slug, org.kbId);
}

export type VoiceMessage = { type: string; [k: string]: any };

/** A browser-like voice client: records every JSON message and binary frame it receives. */
export class VoiceClient {
  readonly messages: VoiceMessage[] = [];
  readonly frames: { at: number; bytes: Buffer }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;
  private waiters: { pred: (m: VoiceMessage) => boolean; resolve: (m: VoiceMessage) => void }[] = [];

  constructor(readonly ws: WebSocket) {
    ws.binaryType = 'nodebuffer';
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered HTTP ${res.statusCode}`)));
    });
    this.opened.catch(() => {});
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => {
      if (isBinary) return void this.frames.push({ at: performance.now(), bytes: data as Buffer });
      const m = JSON.parse(String(data)) as VoiceMessage;
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => (w.pred(m) ? (w.resolve(m), false) : true));
    });
  }

  static connect(wsUrl: string, token: string | null, opts: { origin?: string | null; sessionId?: string; protocols?: string[] } = {}) {
    const url = opts.sessionId ? `${wsUrl}?session_id=${encodeURIComponent(opts.sessionId)}` : wsUrl;
    const protocols = opts.protocols ?? ['groundwork.voice.v1', ...(token ? [`bearer.${token}`] : [])];
    const origin = opts.origin === undefined ? SHOP : opts.origin;
    return new VoiceClient(new WebSocket(url, protocols, { ...(origin ? { origin } : {}), perMessageDeflate: false }));
  }

  /** The first message (already received or future) matching `pred`. */
  next(pred: (m: VoiceMessage) => boolean, timeoutMs = 10_000): Promise<VoiceMessage> {
    const seen = this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(this.messages.map((m) => m.type))}`)), timeoutMs);
      this.waiters.push({ pred, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  type(type: string, timeoutMs?: number) {
    return this.next((m) => m.type === type, timeoutMs);
  }

  json(message: unknown) {
    this.ws.send(JSON.stringify(message));
  }

  audio(pcm: Buffer) {
    this.ws.send(pcm, { binary: true });
  }

  /** Sends pcm in `frameMs` frames, paced by `paceMs` between frames (0: back to back). */
  async stream(pcm: Buffer, frameMs = 40, paceMs = 0) {
    const frameBytes = (24_000 * 2 * frameMs) / 1000;
    for (let off = 0; off < pcm.length; off += frameBytes) {
      if (this.ws.readyState !== this.ws.OPEN) return;
      this.audio(pcm.subarray(off, Math.min(pcm.length, off + frameBytes)));
      await new Promise((r) => (paceMs > 0 ? setTimeout(r, paceMs) : setImmediate(r)));
    }
  }

  close() {
    this.ws.close(1000);
  }
}

export const until = async (cond: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition') => {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
