/**
 * One voice conversation: a browser socket bridged to one upstream Realtime socket.
 *
 *   browser --pcm16 frames--> gateway --input_audio_buffer.append (base64)--> upstream
 *   browser <--pcm16 frames-- gateway <--response.output_audio.delta---------- upstream
 *
 * The gateway configures the upstream session itself and answers the model's
 * `search_knowledge_base` calls with the service's own retrieval; the browser only ever sends
 * audio, `stop` and `interrupted`. Every way a session ends goes through end(), which closes both
 * sockets, frees the organisation's slot and closes the meter, exactly once.
 */
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import type { AppDeps } from '../src/context';
import type { Logger } from '../src/logger';
import type { Citation } from '../src/services/rag/citations';
import { authorizeVoice, VoiceRefusal, type VoiceCaller } from '../src/services/voice/authorize-voice';
import type { VoiceSlots } from '../src/services/voice/voice-slots';
import { citedSources, searchKnowledgeForVoice, VOICE_TOOL_NAME } from '../src/services/voice/voice-knowledge-tool';
import { appendVoiceMessage } from '../src/services/voice/voice-turns';
import { closeVoiceMeter, openVoiceMeter, type VoiceMeter } from '../src/services/voice/voice-usage';
import { toWidgetCitation } from '../src/services/widget/widget-citation';
import type { VoiceLimits } from './limits';
import {
  CLOSE,
  ERROR_MESSAGES,
  MAX_AUDIO_FRAME_BYTES,
  MAX_CONTROL_FRAME_BYTES,
  NORMAL_CLOSE,
  SAMPLE_RATE,
  ZClientMessage,
  type ServerMessage,
  type VoiceErrorCode,
  type VoiceState,
} from './protocol';
import { connectUpstream, sessionConfig, type UpstreamClientEvent, type UpstreamEvent } from './upstream';

const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;
/** A spoken answer's user transcript may arrive after the answer; wait this long to store them in order. */
const USER_TRANSCRIPT_WAIT_MS = 3_000;
/** Playback in the browser lags the frames sent by its jitter buffer; speech within this is still barge-in. */
const PLAYBACK_SLACK_MS = 500;

export type VoiceSessionStats = { audioInBytes: number; audioOutBytes: number; droppedIn: number; droppedOut: number };

/** How a session ended (the close reason: stopped, browser_closed, a refusal or error code) and how long it talked. */
export type VoiceSessionOutcome = { reason: string; readySeconds: number | null };

/** Benchmarks: time from an upstream audio delta's arrival to its frame handed to the browser socket. */
export type VoiceObserver = { relayed(ms: number): void };

type AssistantAudio = { itemId: string; firstFrameAt: number; itemMs: number };

export class VoiceSession {
  private phase: 'authorizing' | 'connecting' | 'ready' | 'ended' = 'authorizing';
  private caller: VoiceCaller | null = null;
  private upstream: WebSocket | null = null;
  private meter: VoiceMeter | null = null;
  private readonly log: Logger;
  private readyAt = 0;
  private lastAudioAt = performance.now();
  private frameWindowStart = 0;
  private framesInWindow = 0;
  private lastPingAt = performance.now();
  private browserAlive = true;
  private upstreamAlive = true;
  private lastUpstreamAt = performance.now();
  /** Since when an upstream event is owed (null: nothing expected, e.g. while the visitor is silent). */
  private awaitingSince: number | null = null;
  private state: VoiceState | null = null;
  private audio: AssistantAudio | null = null;
  private pendingInterrupt: { itemId: string; itemMs: number } | null = null;
  private toolCallsRunning = 0;
  private sources: Citation[] = [];
  private answer = { text: '', final: null as string | null };
  private lastUserTurn: Promise<void> = Promise.resolve();
  private readonly userTurns = new Map<string, () => void>();
  private storage: Promise<void> = Promise.resolve();
  private lastStoredAt = 0;
  readonly stats: VoiceSessionStats = { audioInBytes: 0, audioOutBytes: 0, droppedIn: 0, droppedOut: 0 };
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

  /** Bytes queued toward each side: what backpressure bounds. */
  get buffered() {
    return { browser: this.browser.bufferedAmount, upstream: this.upstream?.bufferedAmount ?? 0 };
  }

  async start(): Promise<void> {
    try {
      this.caller = await authorizeVoice(this.deps, this.request, this.slots);
    } catch (err) {
      if (err instanceof VoiceRefusal) return void (await this.fail(err.code, err.message));
      this.log.error({ err }, 'voice authorisation failed');
      return void (await this.fail('upstream_error'));
    }
    if (this.phase === 'ended') {
      await this.caller.slot.release();
      return;
    }
    this.phase = 'connecting';
    const realtime = this.deps.config.realtime!;
    const upstream = connectUpstream(realtime, { connectTimeoutMs: this.limits.upstreamConnectTimeoutMs, maxPayload: 16 * 1024 * 1024 });
    this.upstream = upstream;
    this.awaitingSince = performance.now();
    upstream.on('open', () => this.sendUpstream({ type: 'session.update', session: sessionConfig(realtime.model) }));
    upstream.on('message', (data) => this.onUpstreamMessage(String(data)));
    upstream.on('pong', () => (this.upstreamAlive = true));
    upstream.on('unexpected-response', (_req, res) => {
      this.log.warn({ status: res.statusCode }, 'voice upstream refused the connection');
      res.resume();
      void this.fail('upstream_error');
    });
    upstream.on('error', (err) => {
      this.log.warn({ err: err.message }, 'voice upstream socket error');
      void this.fail('upstream_error');
    });
    upstream.on('close', (code, reason) => {
      if (this.phase !== 'ended') this.log.warn({ code, reason: String(reason) }, 'voice upstream closed');
      void this.fail('upstream_error');
    });
  }

  /** Called by the gateway a few times a second: timeouts and liveness. */
  tick(now: number): void {
    if (this.phase === 'ended') return;
    if (this.phase === 'ready') {
      if (now - this.readyAt >= this.limits.maxSessionMs) return void this.fail('session_too_long');
      if (now - this.lastAudioAt >= this.limits.idleTimeoutMs) return void this.fail('idle_timeout');
    }
    // While our own knowledge search runs, nothing is owed by the upstream (a slow search is not a stall).
    const owed = this.awaitingSince !== null && this.toolCallsRunning === 0;
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
      if (this.upstream?.readyState === this.upstream?.OPEN) {
        this.upstreamAlive = false;
        this.upstream!.ping();
      }
    }
  }

  /** SIGTERM: tell the visitor, then close. */
  shutdown(): Promise<VoiceSessionOutcome> {
    void this.fail('shutting_down');
    return this.ended;
  }

  // ---- browser -> gateway ----------------------------------------------------------------

  private onBrowserMessage(data: Buffer, isBinary: boolean): void {
    if (this.phase === 'ended') return;
    const now = performance.now();
    if (now - this.frameWindowStart >= 1000) {
      this.frameWindowStart = now;
      this.framesInWindow = 0;
    }
    if (++this.framesInWindow > this.limits.maxFramesPerSecond) {
      return void this.fail('protocol_error', `Too many frames: at most ${this.limits.maxFramesPerSecond} per second`);
    }
    if (isBinary) return this.onAudioFrame(data, now);
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
    this.onInterrupted(message.played_ms);
  }

  private onAudioFrame(frame: Buffer, now: number): void {
    if (frame.length === 0 || frame.length > MAX_AUDIO_FRAME_BYTES || frame.length % 2 !== 0) {
      return void this.fail('protocol_error', `Audio frames must be pcm16: an even number of bytes, at most ${MAX_AUDIO_FRAME_BYTES}`);
    }
    this.lastAudioAt = now;
    // Audio before `ready` has nowhere to go yet: the widget is told to start only after ready.
    if (this.phase !== 'ready') return void (this.stats.droppedIn += frame.length);
    if (this.upstream!.bufferedAmount > this.limits.maxBufferedBytes) return void (this.stats.droppedIn += frame.length);
    this.stats.audioInBytes += frame.length;
    this.sendUpstream({ type: 'input_audio_buffer.append', audio: frame.toString('base64') });
  }

  private onInterrupted(playedMs: number): void {
    const pending = this.pendingInterrupt;
    if (!pending) return;
    this.pendingInterrupt = null;
    // The model can only be truncated within the audio it produced.
    const audioEndMs = Math.max(0, Math.min(Math.round(playedMs), Math.floor(pending.itemMs)));
    this.sendUpstream({ type: 'conversation.item.truncate', item_id: pending.itemId, content_index: 0, audio_end_ms: audioEndMs });
  }

  // ---- upstream -> gateway ---------------------------------------------------------------

  private onUpstreamMessage(raw: string): void {
    if (this.phase === 'ended') return;
    this.lastUpstreamAt = performance.now();
    let event: UpstreamEvent;
    try {
      event = JSON.parse(raw) as UpstreamEvent;
    } catch {
      return void this.fail('upstream_error');
    }
    switch (event.type) {
      case 'session.updated':
        if (this.phase === 'connecting') void this.onReady();
        return;
      case 'error': {
        const e = event.error;
        // Our own requests can be refused one by one (e.g. a truncate after the item ended); the
        // session goes on. Anything else, or any error before the session is set up, ends it.
        if (this.phase === 'ready' && e.type === 'invalid_request_error' && e.code !== 'beta_api_shape_disabled') {
          this.log.warn({ error: e }, 'voice upstream refused an event');
          return;
        }
        this.log.warn({ error: e }, 'voice upstream error');
        return void this.fail('upstream_error');
      }
      case 'input_audio_buffer.speech_started':
        return this.onSpeechStarted(event.item_id);
      case 'input_audio_buffer.speech_stopped':
        this.awaitingSince = performance.now();
        return this.setState('thinking');
      case 'conversation.item.input_audio_transcription.delta':
        if (event.delta) this.send({ type: 'transcript', role: 'user', delta: event.delta });
        return;
      case 'conversation.item.input_audio_transcription.completed':
        return this.onUserTranscript(event.item_id, event.transcript);
      case 'conversation.item.input_audio_transcription.failed':
        this.userTurns.get(event.item_id)?.();
        return;
      case 'response.created':
        this.answer = { text: '', final: null };
        this.awaitingSince = performance.now();
        return;
      case 'response.function_call_arguments.done':
        return void this.runTool(event.call_id, event.name, event.arguments);
      case 'response.output_audio.delta':
        this.onAudioDelta(event.item_id, event.delta);
        this.observer?.relayed(performance.now() - this.lastUpstreamAt);
        return;
      case 'response.output_audio_transcript.delta':
        this.answer.text += event.delta;
        this.send({ type: 'transcript', role: 'assistant', delta: event.delta });
        return;
      case 'response.output_audio_transcript.done':
        this.answer.final = event.transcript;
        return;
      case 'response.done':
        return this.onResponseDone();
      default:
        return;
    }
  }

  private async onReady(): Promise<void> {
    const caller = this.caller!;
    try {
      this.meter = await openVoiceMeter(caller.ctx, caller.kb.id, caller.chatSessionId);
    } catch (err) {
      this.log.error({ err }, 'voice meter could not be opened');
      return void (await this.fail('upstream_error'));
    }
    if (this.phase !== 'connecting') return;
    this.phase = 'ready';
    this.readyAt = performance.now();
    this.lastAudioAt = this.readyAt;
    this.awaitingSince = null;
    this.send({ type: 'ready', session_id: caller.chatSessionId });
    this.setState('listening');
  }

  private onSpeechStarted(itemId: string): void {
    const now = performance.now();
    const a = this.audio;
    if (a && now < a.firstFrameAt + a.itemMs + PLAYBACK_SLACK_MS) {
      this.pendingInterrupt = { itemId: a.itemId, itemMs: a.itemMs };
      this.send({ type: 'interrupt' });
    }
    this.audio = null;
    let done!: () => void;
    const turn = new Promise<void>((resolve) => (done = resolve));
    this.userTurns.set(itemId, () => {
      this.userTurns.delete(itemId);
      done();
    });
    this.lastUserTurn = turn;
    this.setState('listening');
  }

  private onUserTranscript(itemId: string, transcript: string): void {
    const text = transcript.trim();
    if (text) {
      this.send({ type: 'transcript', role: 'user', text, final: true });
      this.store('user', text, []);
    }
    this.userTurns.get(itemId)?.();
  }

  private onAudioDelta(itemId: string, base64: string): void {
    const pcm = Buffer.from(base64, 'base64');
    const now = performance.now();
    if (!this.audio || this.audio.itemId !== itemId) {
      this.audio = { itemId, firstFrameAt: now, itemMs: 0 };
      this.setState('speaking');
    }
    this.audio.itemMs += pcm.length / BYTES_PER_MS;
    const buffered = this.browser.bufferedAmount;
    if (buffered > this.limits.maxBufferedBytes * 4) {
      this.log.warn({ buffered }, 'voice browser is not reading; closing');
      this.browser.terminate();
      return void this.end('browser_backpressure');
    }
    if (buffered > this.limits.maxBufferedBytes) return void (this.stats.droppedOut += pcm.length);
    this.stats.audioOutBytes += pcm.length;
    this.browser.send(pcm, { binary: true });
  }

  private onResponseDone(): void {
    const text = (this.answer.final ?? this.answer.text).trim();
    this.answer = { text: '', final: null };
    if (text) {
      const citations = citedSources(text, this.sources).map(toWidgetCitation);
      this.send({ type: 'citations', citations });
      this.send({ type: 'transcript', role: 'assistant', text, final: true });
      const userTurn = this.lastUserTurn;
      const waited = Promise.race([userTurn, new Promise<void>((r) => setTimeout(r, USER_TRANSCRIPT_WAIT_MS).unref())]);
      this.store('assistant', text, citations, waited);
    }
    if (this.toolCallsRunning === 0) {
      this.awaitingSince = null;
      if (this.state !== 'speaking' || !this.audio) this.setState('listening');
      else {
        // The browser is still playing what was sent; it is "speaking" until that has played.
        const a = this.audio;
        const left = a.firstFrameAt + a.itemMs - performance.now();
        setTimeout(() => {
          if (this.audio === a && this.phase === 'ready') this.setState('listening');
        }, Math.max(0, left)).unref();
      }
    }
  }

  private async runTool(callId: string, name: string, args: string): Promise<void> {
    const caller = this.caller!;
    this.toolCallsRunning++;
    this.setState('thinking');
    let output: string;
    try {
      if (name !== VOICE_TOOL_NAME) output = JSON.stringify({ error: `Unknown tool ${name}` });
      else {
        const result = await searchKnowledgeForVoice(caller.ctx, caller.kb, args);
        this.sources = result.sources;
        output = result.output;
      }
    } catch (err) {
      this.log.error({ err }, 'voice knowledge search failed');
      output = JSON.stringify({ found: false, error: 'The knowledge base could not be searched right now' });
    } finally {
      this.toolCallsRunning--;
    }
    if (this.phase === 'ended') return;
    this.sendUpstream({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
    this.sendUpstream({ type: 'response.create' });
    this.awaitingSince = performance.now();
  }

  // ---- helpers ---------------------------------------------------------------------------

  private setState(state: VoiceState): void {
    if (this.state === state) return;
    this.state = state;
    this.send({ type: 'state', state });
  }

  private send(message: ServerMessage): void {
    if (this.browser.readyState !== this.browser.OPEN) return;
    this.browser.send(JSON.stringify(message));
  }

  private sendUpstream(event: UpstreamClientEvent): void {
    const up = this.upstream;
    if (up && up.readyState === up.OPEN) up.send(JSON.stringify(event));
  }

  /** Turns are written one after another, in the order they happened. */
  private store(role: 'user' | 'assistant', content: string, citations: unknown[], after: Promise<void> = Promise.resolve()): void {
    const caller = this.caller!;
    this.storage = this.storage
      .then(() => after)
      .then(async () => {
        const at = Math.max(Date.now(), this.lastStoredAt + 1);
        this.lastStoredAt = at;
        await appendVoiceMessage(caller.ctx, caller.chatSessionId, { role, content, citations, at: new Date(at) });
      })
      .catch((err) => this.log.error({ err }, 'voice turn could not be stored'));
  }

  private fail(code: VoiceErrorCode, message?: string): Promise<VoiceSessionOutcome> {
    if (this.phase === 'ended') return this.ended;
    this.send({ type: 'error', code, message: message ?? ERROR_MESSAGES[code] ?? code });
    return this.end(code, CLOSE[code]);
  }

  private async end(reason: string, closeCode?: number): Promise<VoiceSessionOutcome> {
    if (this.phase === 'ended') return this.ended;
    const wasAuthorized = this.caller !== null;
    this.phase = 'ended';
    this.pendingInterrupt = null;
    for (const resolve of this.userTurns.values()) resolve();
    const up = this.upstream;
    if (up) {
      up.removeAllListeners('close');
      up.on('error', () => {});
      if (up.readyState === up.OPEN) up.close(NORMAL_CLOSE);
      else up.terminate();
    }
    if (this.browser.readyState === this.browser.OPEN) {
      if (closeCode === NORMAL_CLOSE) await this.storage;
      this.browser.close(closeCode ?? NORMAL_CLOSE, closeCode === NORMAL_CLOSE ? '' : reason);
    }
    try {
      await this.storage;
      if (this.meter) {
        const seconds = await closeVoiceMeter(this.deps, this.meter, {
          audioInSeconds: this.stats.audioInBytes / BYTES_PER_MS / 1000,
          audioOutSeconds: this.stats.audioOutBytes / BYTES_PER_MS / 1000,
          reason,
        });
        this.log.info({ reason, seconds: Math.round(seconds), ...this.stats }, 'voice session ended');
      }
    } catch (err) {
      this.log.error({ err }, 'voice session could not be metered');
    } finally {
      if (wasAuthorized) await this.caller!.slot.release();
      this.resolveEnded({ reason, readySeconds: this.readyAt ? (performance.now() - this.readyAt) / 1000 : null });
    }
    return this.ended;
  }
}
