/**
 * One voice conversation's lifecycle: a browser socket bridged to one upstream Realtime socket.
 *
 *   browser --pcm16 frames--> gateway --input_audio_buffer.append (base64)--> upstream
 *   browser <--pcm16 frames-- gateway <--response.output_audio.delta---------- upstream
 *
 * The session authorises the caller, opens (and once reopens) the upstream, keeps both sockets
 * alive and enforces the limits; what the conversation does with the upstream's events is
 * upstream-events.ts, the audio both ways audio-relay.ts, the turns turn-tracker.ts. The gateway
 * configures the upstream session itself; the browser only ever sends audio, `stop` and
 * `interrupted`. Every way a session ends goes through end(), which closes both sockets, frees the
 * organisation's slot and closes the meter, exactly once.
 */
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import type { AppDeps } from '../src/context';
import type { Logger } from '../src/logger';
import { authorizeVoice, VoiceRefusal, type VoiceCaller } from '../src/services/voice/authorize-voice';
import type { VoiceSlots } from '../src/services/voice/voice-slots';
import { recentTurnsForVoice } from '../src/services/voice/voice-turns';
import { recordProviderRefusal } from '../src/services/voice/voice-provider-status';
import { resolveVoiceSettings } from '../src/services/voice/voice-settings';
import { audioFrameProblem, AudioRelay, type VoiceObserver, type VoiceSessionStats } from './audio-relay';
import { chatSessionStore, type ConversationStore } from './conversation-store';
import { FrameBudget } from './frame-budget';
import type { VoiceLimits } from './limits';
import {
  CLOSE,
  ERROR_MESSAGES,
  MAX_CONTROL_FRAME_BYTES,
  NORMAL_CLOSE,
  NOTICE_MESSAGES,
  VOICE_KEY_REFUSED_MESSAGE,
  ZClientMessage,
  type ServerMessage,
  type VoiceErrorCode,
} from './protocol';
import { knowledgeSearch } from './tool-calls';
import { connectUpstream, sessionConfig, type UpstreamClientEvent, type UpstreamEvent } from './upstream';
import { UpstreamEvents, type VoiceSessionPort } from './upstream-events';
import { voiceSessionMeter, type VoiceMetering } from './voice-metering';

/** Frames a browser may send at once, in seconds of its rate: what the gateway's own stalls queue up. */
const FRAME_BURST_SECONDS = 2;

/** How a session ended (the close reason: stopped, browser_closed, a refusal or error code) and how long it talked. */
export type VoiceSessionOutcome = { reason: string; readySeconds: number | null };

/** What exists once the caller is authorised: where turns are stored, the meter, the conversation. */
type Authorized = { caller: VoiceCaller; store: ConversationStore; metering: VoiceMetering; events: UpstreamEvents };

export class VoiceSession {
  private phase: 'authorizing' | 'connecting' | 'ready' | 'ended' = 'authorizing';
  private authorized: Authorized | null = null;
  private upstream: WebSocket | null = null;
  private readonly log: Logger;
  private readonly relay: AudioRelay;
  private readyAt = 0;
  private lastAudioAt = performance.now();
  private readonly frameBudget: FrameBudget;
  private lastPingAt = performance.now();
  private browserAlive = true;
  private upstreamAlive = true;
  private lastUpstreamAt = performance.now();
  /** Since when an upstream event is owed (null: nothing expected, e.g. while the visitor is silent). */
  private awaitingSince: number | null = null;
  private eventSeq = 0;
  private reconnected = false;
  private reconnecting = false;
  /** Resolves when the session has fully ended (sockets closed, turns stored, meter closed). */
  readonly ended: Promise<VoiceSessionOutcome>;
  private resolveEnded!: (outcome: VoiceSessionOutcome) => void;

  constructor(
    private readonly browser: WebSocket,
    private readonly request: { token: string | null; origin: string | undefined; sessionId: string | null; requestId: string },
    private readonly deps: AppDeps,
    private readonly limits: VoiceLimits,
    private readonly slots: VoiceSlots,
    private readonly observer?: VoiceObserver,
  ) {
    this.log = deps.logger.child({ requestId: request.requestId, voice: true });
    this.frameBudget = new FrameBudget(limits.maxFramesPerSecond, FRAME_BURST_SECONDS, performance.now());
    // Audio before `ready` has nowhere to go yet: the widget is told to start only after ready.
    this.relay = new AudioRelay(browser, () => (this.phase === 'ready' && !this.reconnecting ? this.upstream : null), limits, observer);
    this.ended = new Promise((r) => (this.resolveEnded = r));
    browser.on('message', (data, isBinary) => this.onBrowserMessage(data as Buffer, isBinary));
    browser.on('pong', () => (this.browserAlive = true));
    browser.on('close', () => void this.end('browser_closed'));
    browser.on('error', (err) => this.log.debug({ err }, 'voice browser socket error'));
  }

  static fromRequest(
    browser: WebSocket,
    req: IncomingMessage,
    token: string | null,
    deps: AppDeps,
    limits: VoiceLimits,
    slots: VoiceSlots,
    requestId: string,
    observer?: VoiceObserver,
  ) {
    const sessionId = new URL(req.url ?? '/', 'http://localhost').searchParams.get('session_id');
    return new VoiceSession(browser, { token, origin: req.headers.origin, sessionId, requestId }, deps, limits, slots, observer);
  }

  get isEnded() {
    return this.phase === 'ended';
  }

  get stats(): VoiceSessionStats {
    return this.relay.stats;
  }

  /** Bytes queued toward each side: what backpressure bounds. */
  get buffered() {
    return { browser: this.browser.bufferedAmount, upstream: this.upstream?.bufferedAmount ?? 0 };
  }

  async start(): Promise<void> {
    let caller: VoiceCaller;
    try {
      caller = await authorizeVoice(this.deps, this.request, this.slots);
    } catch (err) {
      if (err instanceof VoiceRefusal) return void (await this.fail(err.code, err.message));
      this.log.error({ err }, 'voice authorisation failed');
      return void (await this.fail('upstream_error'));
    }
    const store = chatSessionStore(caller, this.log);
    const metering = voiceSessionMeter(this.deps, caller);
    const events = new UpstreamEvents(this.sessionPort(), this.relay, store, metering, knowledgeSearch(caller, this.log), this.observer);
    this.authorized = { caller, store, metering, events };
    if (this.phase === 'ended') {
      await caller.slot.release();
      return;
    }
    this.phase = 'connecting';
    this.connect();
  }

  /** What the conversation's event handling may do to the session. */
  private sessionPort(): VoiceSessionPort {
    return {
      log: this.log,
      isEnded: () => this.phase === 'ended',
      isReady: () => this.phase === 'ready',
      isLive: () => this.phase === 'ready' && !this.reconnecting,
      sessionUpdated: () => {
        if (this.phase === 'connecting') void this.onReady();
        else if (this.reconnecting) void this.onReconnected();
      },
      fail: (code) => void this.fail(code),
      browserStuck: () => {
        this.log.warn({ buffered: this.browser.bufferedAmount }, 'voice browser is not reading; closing');
        this.browser.terminate();
        void this.end('browser_backpressure');
      },
      toBrowser: (message) => this.send(message),
      toUpstream: (event) => this.sendUpstream(event),
      awaitUpstream: (since) => (this.awaitingSince = since),
      eventId: (kind) => `${kind}_${this.request.requestId.slice(0, 8)}_${++this.eventSeq}`,
    };
  }

  /** Opens the upstream socket; its events count only while it is the session's current one. */
  private connect(): void {
    const realtime = this.deps.config.realtime!;
    const { caller } = this.authorized!;
    const upstream = connectUpstream(realtime, { connectTimeoutMs: this.limits.upstreamConnectTimeoutMs, maxPayload: 16 * 1024 * 1024 });
    this.upstream = upstream;
    this.upstreamAlive = true;
    this.awaitingSince = performance.now();
    const current = () => this.upstream === upstream && this.phase !== 'ended';
    upstream.on('open', () => current() && this.sendUpstream({ type: 'session.update', session: sessionConfig(realtime.model, resolveVoiceSettings(caller.ctx.org.settings?.voice_settings, caller.kb.voice_settings)) }));
    upstream.on('message', (data) => current() && this.onUpstreamMessage(String(data)));
    upstream.on('pong', () => (this.upstreamAlive = true));
    upstream.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => body.length < 4096 && (body += c));
      res.on('end', () => {
        if (!current()) return;
        this.log.warn({ status, body: body.slice(0, 500) }, 'voice upstream refused the connection');
        if (status === 401 || status === 403) void this.onKeyRefused(status, body);
        else void this.fail('upstream_error');
      });
      res.on('error', () => current() && void this.fail('upstream_error'));
    });
    upstream.on('error', (err) => {
      if (!current()) return;
      this.log.warn({ err: err.message }, 'voice upstream socket error');
      this.onUpstreamLost();
    });
    upstream.on('close', (code, reason) => {
      if (!current()) return;
      this.log.warn({ code, reason: String(reason) }, 'voice upstream closed');
      this.onUpstreamLost();
    });
  }

  /** 401/403: not temporary. Voice is marked unavailable for this key, with the reason admins see. */
  private async onKeyRefused(status: number, body: string): Promise<void> {
    let error: { code?: string | null; message?: string } = {};
    try {
      error = (JSON.parse(body) as { error?: typeof error }).error ?? {};
    } catch {
      /* not JSON: the status says enough */
    }
    try {
      await recordProviderRefusal(this.deps, { status, code: error.code ?? null, message: error.message ?? `HTTP ${status}` });
    } catch (err) {
      this.log.error({ err }, 'voice provider refusal could not be recorded');
    }
    await this.fail('voice_unavailable', VOICE_KEY_REFUSED_MESSAGE);
  }

  /**
   * The upstream went away. Before the session is ready that is a failure; once ready, the gateway
   * reconnects once, re-seeding the conversation from what was stored, and the visitor goes on.
   */
  private onUpstreamLost(): void {
    if (this.phase !== 'ready' || this.reconnected) return void this.fail('upstream_error');
    this.reconnected = true;
    this.reconnecting = true;
    const old = this.upstream;
    old?.removeAllListeners();
    old?.on('error', () => {});
    old?.terminate();
    const { events } = this.authorized!;
    events.reconnecting();
    this.send({ type: 'notice', code: 'reconnecting', message: NOTICE_MESSAGES.reconnecting });
    events.setState('thinking');
    this.connect();
  }

  /** Called by the gateway a few times a second: timeouts and liveness. */
  tick(now: number): void {
    if (this.phase === 'ended') return;
    if (this.phase === 'ready') {
      if (now - this.readyAt >= this.limits.maxSessionMs) return void this.fail('session_too_long');
      if (now - this.lastAudioAt >= this.limits.idleTimeoutMs) return void this.fail('idle_timeout');
    }
    // While our own knowledge search runs, nothing is owed by the upstream (a slow search is not a stall).
    const owed = this.awaitingSince !== null && !this.authorized?.events.searching;
    if (owed && now - Math.max(this.awaitingSince!, this.lastUpstreamAt) >= this.limits.upstreamStallMs) {
      this.log.warn('voice upstream stalled');
      return void this.fail('upstream_error');
    }
    if (now - this.lastPingAt >= this.limits.pingIntervalMs) {
      if (!this.browserAlive) {
        this.log.info('voice browser stopped answering pings');
        this.browser.terminate();
        return void this.end('browser_gone');
      }
      if (this.upstream && this.phase === 'ready' && !this.upstreamAlive) return void this.fail('upstream_error');
      this.lastPingAt = now;
      this.browserAlive = false;
      this.browser.ping();
      // No upstream yet while the caller is being authorised (a slow database can outlast a ping interval).
      const up = this.upstream;
      if (up && up.readyState === up.OPEN) {
        this.upstreamAlive = false;
        up.ping();
      }
    }
  }

  /** SIGTERM: tell the visitor, then close. */
  shutdown(): Promise<VoiceSessionOutcome> {
    void this.fail('shutting_down');
    return this.ended;
  }

  private onBrowserMessage(data: Buffer, isBinary: boolean): void {
    if (this.phase === 'ended') return;
    const now = performance.now();
    if (!this.frameBudget.take(now)) {
      return void this.fail('protocol_error', `Too many frames: at most ${this.limits.maxFramesPerSecond} per second`);
    }
    if (isBinary) {
      const problem = audioFrameProblem(data);
      if (problem) return void this.fail('protocol_error', problem);
      this.lastAudioAt = now;
      return this.relay.fromBrowser(data, now);
    }
    if (data.length > MAX_CONTROL_FRAME_BYTES) return void this.fail('protocol_error', 'Control message too large');
    let json: unknown;
    try {
      json = JSON.parse(data.toString('utf8'));
    } catch {
      return void this.fail('protocol_error', 'Control messages must be JSON');
    }
    const parsed = ZClientMessage.safeParse(json);
    if (!parsed.success) return void this.fail('protocol_error', 'Unknown control message: expected {"type":"stop"} or {"type":"interrupted","played_ms":n}');
    const message = parsed.data;
    if (message.type === 'stop') return void this.end('stopped', NORMAL_CLOSE);
    this.authorized?.events.interrupted(message.played_ms);
  }

  private onUpstreamMessage(raw: string): void {
    if (this.phase === 'ended') return;
    this.lastUpstreamAt = performance.now();
    let event: UpstreamEvent;
    try {
      event = JSON.parse(raw) as UpstreamEvent;
    } catch {
      return void this.fail('upstream_error');
    }
    this.authorized!.events.handle(event, this.lastUpstreamAt);
  }

  private async onReady(): Promise<void> {
    const { caller, metering, events } = this.authorized!;
    try {
      await metering.open();
      // Voice continuing a typed conversation: the model gets its recent turns as context.
      if (this.request.sessionId) await this.seed();
    } catch (err) {
      this.log.error({ err }, 'voice session could not be set up');
      return void (await this.fail('upstream_error'));
    }
    if (this.phase !== 'connecting') return;
    this.phase = 'ready';
    this.readyAt = performance.now();
    this.lastAudioAt = this.readyAt;
    this.awaitingSince = null;
    this.send({ type: 'ready', session_id: caller.chatSessionId });
    events.setState('listening');
  }

  private async onReconnected(): Promise<void> {
    try {
      await this.authorized!.store.flushed();
      await this.seed();
    } catch (err) {
      this.log.error({ err }, 'voice conversation could not be re-seeded');
      return void (await this.fail('upstream_error'));
    }
    if (this.phase !== 'ready') return;
    this.reconnecting = false;
    this.awaitingSince = null;
    this.log.info('voice upstream reconnected');
    this.authorized!.events.setState('listening');
  }

  /** The chat session's recent turns as conversation items, oldest first (bounded: SEED_MAX_*). */
  private async seed(): Promise<void> {
    const { caller } = this.authorized!;
    const turns = await recentTurnsForVoice(caller.ctx, caller.chatSessionId);
    for (const t of turns) {
      const item =
        t.role === 'user'
          ? { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: t.content }] }
          : { type: 'message' as const, role: 'assistant' as const, content: [{ type: 'output_text' as const, text: t.content }] };
      this.sendUpstream({ type: 'conversation.item.create', item });
    }
  }

  private send(message: ServerMessage): void {
    if (this.browser.readyState !== this.browser.OPEN) return;
    this.browser.send(JSON.stringify(message));
  }

  private sendUpstream(event: UpstreamClientEvent): void {
    const up = this.upstream;
    if (up && up.readyState === up.OPEN) up.send(JSON.stringify(event));
  }

  private fail(code: VoiceErrorCode, message?: string): Promise<VoiceSessionOutcome> {
    if (this.phase === 'ended') return this.ended;
    this.send({ type: 'error', code, message: message ?? ERROR_MESSAGES[code] ?? code });
    return this.end(code, CLOSE[code]);
  }

  private async end(reason: string, closeCode?: number): Promise<VoiceSessionOutcome> {
    if (this.phase === 'ended') return this.ended;
    const authorized = this.authorized;
    // Stop or a drop in the middle of an answer: what had played is stored, marked interrupted.
    if (this.phase === 'ready') authorized?.events.abandonTurn();
    this.phase = 'ended';
    authorized?.store.settleAll();
    const up = this.upstream;
    if (up) {
      up.removeAllListeners('close');
      up.on('error', () => {});
      if (up.readyState === up.OPEN) up.close(NORMAL_CLOSE);
      else up.terminate();
    }
    const flushed = () => authorized?.store.flushed() ?? Promise.resolve();
    if (this.browser.readyState === this.browser.OPEN) {
      if (closeCode === NORMAL_CLOSE) await flushed();
      this.browser.close(closeCode ?? NORMAL_CLOSE, closeCode === NORMAL_CLOSE ? '' : reason);
    }
    try {
      await flushed();
      const seconds = await authorized?.metering.close(reason, this.relay.seconds);
      if (seconds != null) this.log.info({ reason, seconds: Math.round(seconds), ...this.stats }, 'voice session ended');
    } catch (err) {
      this.log.error({ err }, 'voice session could not be metered');
    } finally {
      if (authorized) await authorized.caller.slot.release();
      this.resolveEnded({ reason, readySeconds: this.readyAt ? (performance.now() - this.readyAt) / 1000 : null });
    }
    return this.ended;
  }
}
