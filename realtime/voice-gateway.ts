/**
 * The voice gateway on the app's own HTTP server: one 'upgrade' dispatcher (only
 * /api/widget/voice upgrades; any other path is answered 404 and closed), one `ws` server in
 * noServer mode. Refusals happen after the upgrade, as an `error` message and a close code,
 * because a browser cannot read an HTTP error on a WebSocket.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AppDeps } from '../src/context';
import { voiceSessionDuration, voiceSessionsEnded, voiceSessionsOpen } from '../src/metrics';
import { tokenFromSubprotocols } from '../src/services/voice/authorize-voice';
import { createVoiceSlots } from '../src/services/voice/voice-slots';
import { createFailedKeyThrottle, type FailedKeyThrottle } from '../src/http/failed-key-throttle';
import { rateLimitKeyForIp } from '../src/http/client-ip';
import { voiceLimits, type VoiceLimits } from './limits';
import { VOICE_PATH, VOICE_SUBPROTOCOL } from './protocol';
import type { VoiceObserver, VoiceSessionStats } from './audio-relay';
import { VoiceSession } from './voice-session';

/** Frames above this are cut by `ws` itself (close 1009); below it, the session answers protocol_error. */
const WS_MAX_PAYLOAD = 64 * 1024;
const TICK_MS = 250;

export type VoiceGateway = {
  /** Open voice sessions. */
  sessions(): number;
  /** Per-session counters and queued bytes (tests, benchmarks, diagnostics). */
  inspect(): { stats: VoiceSessionStats; buffered: { browser: number; upstream: number } }[];
  /** Refuse new upgrades, close every session with `shutting_down`, wait for them (bounded). */
  close(): Promise<void>;
  limits: VoiceLimits;
};

function refuseUpgrade(socket: Duplex, status: 404 | 429 | 503, retryAfter?: number) {
  const text = status === 404 ? 'Not Found' : status === 429 ? 'Too Many Requests' : 'Service Unavailable';
  const extra = retryAfter ? `retry-after: ${retryAfter}\r\n` : '';
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${extra}connection: close\r\ncontent-length: 0\r\n\r\n`);
  setTimeout(() => socket.destroy(), 1000).unref();
}

function offeredProtocols(req: IncomingMessage): string[] {
  return (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

export function attachVoiceGateway(
  server: Server,
  deps: AppDeps,
  /** `failedKeys`: the app's throttle, so refused tokens here and on /api/widget count together. */
  opts: { limits?: Partial<VoiceLimits>; observer?: VoiceObserver; failedKeys?: FailedKeyThrottle } = {},
): VoiceGateway {
  const failedKeys = opts.failedKeys ?? createFailedKeyThrottle(deps);
  const limits = voiceLimits(deps.config, opts.limits);
  const slots = createVoiceSlots(deps);
  const sessions = new Set<VoiceSession>();
  let closing = false;
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: WS_MAX_PAYLOAD,
    clientTracking: false,
    handleProtocols: (protocols) => (protocols.has(VOICE_SUBPROTOCOL) ? VOICE_SUBPROTOCOL : false),
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const path = (req.url ?? '/').split('?')[0];
    if (path !== VOICE_PATH) return refuseUpgrade(socket, 404);
    if (closing) return refuseUpgrade(socket, 503);
    // An address that keeps presenting refused tokens is turned away before the upgrade (a 429 the
    // browser cannot read, but a guesser's script can).
    const address = rateLimitKeyForIp(req.socket.remoteAddress ?? 'unknown');
    void failedKeys.check(address, null).then(
      () => upgrade(req, socket, head, address),
      (err) => refuseUpgrade(socket, 429, (err as { details?: { retryAfter?: number } }).details?.retryAfter ?? 1),
    );
  });

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, address: string) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const requestId = randomUUID();
      const session = VoiceSession.fromRequest(ws, req, tokenFromSubprotocols(offeredProtocols(req)), deps, limits, slots, requestId, opts.observer);
      sessions.add(session);
      voiceSessionsOpen.inc();
      void session.ended.then(({ reason, readySeconds }) => {
        if (reason === 'invalid_token') void failedKeys.fail(address, null).catch(() => {});
        sessions.delete(session);
        voiceSessionsOpen.dec();
        voiceSessionsEnded.inc({ reason });
        if (readySeconds !== null) voiceSessionDuration.observe(readySeconds);
      });
      void session.start();
    });
  };

  const tick = setInterval(() => {
    const now = performance.now();
    for (const s of sessions) s.tick(now);
  }, TICK_MS);
  tick.unref();

  return {
    limits,
    sessions: () => sessions.size,
    inspect: () => [...sessions].map((s) => ({ stats: { ...s.stats }, buffered: s.buffered })),
    async close() {
      closing = true;
      clearInterval(tick);
      const all = [...sessions].map((s) => s.shutdown());
      await Promise.race([Promise.all(all), new Promise((r) => setTimeout(r, limits.shutdownGraceMs).unref())]);
      slots.close();
      wss.close();
    },
  };
}
