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
import { appendVoiceMessage, recentTurnsForVoice } from '../src/services/voice/voice-turns';
import { recordProviderRefusal } from '../src/services/voice/voice-provider-status';
import { resolveVoiceSettings } from '../src/services/voice/voice-settings';
import { closeVoiceMeter, noTokens, openVoiceMeter, type VoiceMeter } from '../src/services/voice/voice-usage';
import { toWidgetCitation } from '../src/services/widget/widget-citation';
import { FrameBudget } from './frame-budget';
import type { VoiceLimits } from './limits';
import {
  CLOSE,
  ERROR_MESSAGES,
  MAX_AUDIO_FRAME_BYTES,
  MAX_CONTROL_FRAME_BYTES,
  NORMAL_CLOSE,
  NOTICE_MESSAGES,
  VOICE_KEY_REFUSED_MESSAGE,
  SAMPLE_RATE,
  ZClientMessage,
  type ServerMessage,
  type VoiceErrorCode,
  type VoiceState,
} from './protocol';
import { connectUpstream, sessionConfig, type RealtimeResponse, type UpstreamClientEvent, type UpstreamEvent } from './upstream';

const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;
/**
 * `input_audio_buffer.append` is built around the frame's base64 as bytes rather than
 * JSON.stringify'd: base64 needs no escaping, and at 50 frames a second per session the escape scan,
 * the string's UTF-8 encoding and ws's two-buffer write were a third of the gateway's own CPU.
 */
const APPEND_HEAD = Buffer.from('{"type":"input_audio_buffer.append","audio":"');
const APPEND_TAIL = Buffer.from('"}');
/** A spoken answer's user transcript may arrive after the answer; wait this long to store them in order. */
const USER_TRANSCRIPT_WAIT_MS = 3_000;
/** Frames a browser may send at once, in seconds of its rate: what the gateway's own stalls queue up. */
const FRAME_BURST_SECONDS = 2;
/** Playback in the browser lags the frames sent by its jitter buffer; speech within this is still barge-in. */
const PLAYBACK_SLACK_MS = 500;
/** After `interrupt`, how long the browser has to report played_ms before the gateway estimates it. */
const INTERRUPTED_WAIT_MS = 2_000;

export type VoiceSessionStats = { audioInBytes: number; audioOutBytes: number; droppedIn: number; droppedOut: number };

/** How a session ended (the close reason: stopped, browser_closed, a refusal or error code) and how long it talked. */
export type VoiceSessionOutcome = { reason: string; readySeconds: number | null };

/**
 * Benchmarks: `relayed` is the time from an upstream audio delta's arrival to its frame handed to
 * the browser socket; `forwarded` from a browser frame's arrival to its append handed upstream;
 * `appended` the frames each append carried.
 */
export type VoiceObserver = { relayed(ms: number): void; forwarded?(ms: number): void; appended?(frames: number): void };

/** One assistant audio item as the browser plays it: it starts when the browser's queue reaches it. */
type SpokenItem = { itemId: string; responseId: string; text: string; startsAt: number; ms: number };

/**
 * One turn: the visitor's question and the model's answer to it, which may take several responses
 * (a spoken preamble, tool calls, the answer). Sources and spoken parts belong to the turn; the
 * answer is stored once, as heard.
 */
type Turn = {
  sources: Citation[];
  /** Spoken parts finished before the current item (a preamble before the tool call). */
  prior: string[];
  item: SpokenItem | null;
  /** The visitor's transcript of this turn is stored (or given up on): the answer is stored after it. */
  userDone: Promise<void>;
  /** The model finished the answer (completed or incomplete). */
  finished: boolean;
  incomplete: boolean;
  stored: boolean;
  commitTimer: NodeJS.Timeout | null;
};

/** A model response the gateway follows: its tool calls, and whether its own response.done came. */
type ResponseState = { calls: number; hadCalls: boolean; done: boolean; followed: boolean; abandoned: boolean; status: string | null };

const newTurn = (userDone: Promise<void> = Promise.resolve()): Turn => ({
  sources: [],
  prior: [],
  item: null,
  userDone,
  finished: false,
  incomplete: false,
  stored: false,
  commitTimer: null,
});

/** The first `fraction` of a transcript, cut at a word boundary: what was heard of it. */
export function heardPart(text: string, fraction: number): string {
  const t = text.trim();
  if (fraction >= 1) return t;
  if (fraction <= 0) return '';
  const n = Math.round(t.length * fraction);
  const cut = t.slice(0, n + 1).lastIndexOf(' ');
  const part = (cut > 0 ? t.slice(0, cut) : t.slice(0, n)).trimEnd();
  return part ? `${part}…` : '';
}

export class VoiceSession {
  private phase: 'authorizing' | 'connecting' | 'ready' | 'ended' = 'authorizing';
  private caller: VoiceCaller | null = null;
  private upstream: WebSocket | null = null;
  private meter: VoiceMeter | null = null;
  private readonly log: Logger;
  private readyAt = 0;
  private lastAudioAt = performance.now();
  private readonly frameBudget: FrameBudget;
  private lastPingAt = performance.now();
  private browserAlive = true;
  private upstreamAlive = true;
  private lastUpstreamAt = performance.now();
  /** Since when an upstream event is owed (null: nothing expected, e.g. while the visitor is silent). */
  private awaitingSince: number | null = null;
  private state: VoiceState | null = null;
  private turn: Turn = newTurn();
  /** When the browser's playback queue runs dry, as far as the gateway can tell. */
  private playbackEndsAt = 0;
  private pendingInterrupt: { turn: Turn; item: SpokenItem; timer: NodeJS.Timeout } | null = null;
  private readonly responses = new Map<string, ResponseState>();
  private toolCallsRunning = 0;
  /** Searches of one turn run one after another, so their passage markers continue. */
  private toolQueue: Promise<void> = Promise.resolve();
  private retryCreate = false;
  private eventSeq = 0;
  private reconnected = false;
  private reconnecting = false;
  private readonly tokens = noTokens();
  private readonly userTurns = new Map<string, () => void>();
  private storage: Promise<void> = Promise.resolve();
  private lastStoredAt = 0;
  /** Browser frames read in this tick, not yet appended upstream (see queueAudio). */
  private pendingAudio: Buffer[] = [];
  private pendingArrivals: number[] = [];
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
    this.frameBudget = new FrameBudget(limits.maxFramesPerSecond, FRAME_BURST_SECONDS, performance.now());
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
    this.connect();
  }

  /** Opens the upstream socket; its events count only while it is the session's current one. */
  private connect(): void {
    const realtime = this.deps.config.realtime!;
    const upstream = connectUpstream(realtime, { connectTimeoutMs: this.limits.upstreamConnectTimeoutMs, maxPayload: 16 * 1024 * 1024 });
    this.upstream = upstream;
    this.upstreamAlive = true;
    this.awaitingSince = performance.now();
    const current = () => this.upstream === upstream && this.phase !== 'ended';
    upstream.on('open', () => current() && this.sendUpstream({ type: 'session.update', session: sessionConfig(realtime.model, resolveVoiceSettings(this.caller!.ctx.org.settings?.voice_settings, this.caller!.kb.voice_settings)) }));
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
    this.abandonTurn();
    this.responses.clear();
    this.toolCallsRunning = 0;
    this.send({ type: 'notice', code: 'reconnecting', message: NOTICE_MESSAGES.reconnecting });
    this.setState('thinking');
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

  // ---- browser -> gateway ----------------------------------------------------------------

  private onBrowserMessage(data: Buffer, isBinary: boolean): void {
    if (this.phase === 'ended') return;
    const now = performance.now();
    if (!this.frameBudget.take(now)) {
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
    if (this.phase !== 'ready' || this.reconnecting) return void (this.stats.droppedIn += frame.length);
    if (this.upstream!.bufferedAmount > this.limits.maxBufferedBytes) return void (this.stats.droppedIn += frame.length);
    this.queueAudio(frame, now);
  }

  /**
   * Frames one socket read delivered together (the browser's frames queue up in the kernel while
   * the loop is busy) go upstream as ONE append, at the end of the current tick: no frame waits for
   * a timer or another read, and a busy gateway spends one message and one write on a whole backlog
   * instead of one per 20 ms frame. The upstream's input buffer is a byte stream, so the audio is
   * the same.
   */
  private queueAudio(frame: Buffer, arrivedAt: number): void {
    this.pendingAudio.push(frame);
    if (this.observer?.forwarded) this.pendingArrivals.push(arrivedAt);
    if (this.pendingAudio.length === 1) process.nextTick(this.flushAudio);
  }

  private readonly flushAudio = (): void => {
    const frames = this.pendingAudio;
    const arrivals = this.pendingArrivals;
    this.pendingAudio = [];
    this.pendingArrivals = [];
    const pcm = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    const up = this.upstream;
    if (this.phase !== 'ready' || this.reconnecting || !up || up.readyState !== up.OPEN) return void (this.stats.droppedIn += pcm.length);
    const b64 = pcm.toString('base64');
    const message = Buffer.allocUnsafe(APPEND_HEAD.length + b64.length + APPEND_TAIL.length);
    APPEND_HEAD.copy(message, 0);
    message.write(b64, APPEND_HEAD.length, 'latin1');
    APPEND_TAIL.copy(message, APPEND_HEAD.length + b64.length);
    // A Buffer is masked into one new buffer with its header: one write, where a string costs two.
    up.send(message, { binary: false });
    this.stats.audioInBytes += pcm.length;
    if (this.observer?.forwarded) {
      const now = performance.now();
      for (const at of arrivals) this.observer.forwarded(now - at);
    }
    this.observer?.appended?.(frames.length);
  };

  private onInterrupted(playedMs: number): void {
    const pending = this.pendingInterrupt;
    if (!pending) return;
    this.pendingInterrupt = null;
    clearTimeout(pending.timer);
    // The model can only be truncated within the audio it produced (OpenAI refuses a truncate past it).
    const audioEndMs = Math.max(0, Math.min(Math.round(playedMs), Math.floor(pending.item.ms)));
    this.sendUpstream({ type: 'conversation.item.truncate', item_id: pending.item.itemId, content_index: 0, audio_end_ms: audioEndMs });
    this.commit(pending.turn, audioEndMs);
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
        else if (this.reconnecting) void this.onReconnected();
        return;
      case 'error': {
        const e = event.error;
        if (e.code === 'conversation_already_has_active_response') {
          // A response started by the server (VAD) won the race: ask again once it is done.
          this.log.info({ error: e }, 'voice upstream already had an active response; retrying after it');
          this.retryCreate = true;
          return;
        }
        // Our own requests can be refused one by one (e.g. a truncate after the item ended); the
        // session goes on. Anything else, or any error before the session is set up, ends it.
        if (this.phase === 'ready' && !this.reconnecting && e.type === 'invalid_request_error' && e.code !== 'beta_api_shape_disabled') {
          this.log.warn({ error: e }, 'voice upstream refused an event');
          return;
        }
        this.log.warn({ error: e }, 'voice upstream error');
        return void this.fail('upstream_error');
      }
      case 'rate_limits.updated':
        // Informational: OpenAI reserves the response's tokens up front; a response over the limit
        // comes back as response.done status "failed", which is handled there.
        this.log.debug({ rateLimits: event.rate_limits }, 'voice upstream rate limits');
        return;
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
        if (event.response.id) this.responses.set(event.response.id, { calls: 0, hadCalls: false, done: false, followed: false, abandoned: false, status: null });
        this.awaitingSince = performance.now();
        return;
      case 'response.function_call_arguments.done':
        return this.onToolCall(event.response_id, event.call_id, event.name, event.arguments);
      case 'response.output_audio.delta':
        this.onAudioDelta(event.response_id, event.item_id, event.delta);
        this.observer?.relayed(performance.now() - this.lastUpstreamAt);
        return;
      case 'response.output_audio_transcript.delta': {
        const item = this.spokenItem(event.response_id, event.item_id);
        item.text += event.delta;
        this.send({ type: 'transcript', role: 'assistant', delta: event.delta });
        return;
      }
      case 'response.output_audio_transcript.done': {
        const item = this.turn.item;
        if (item && item.itemId === event.item_id) item.text = event.transcript;
        return;
      }
      case 'response.done':
        return this.onResponseDone(event.response);
      default:
        return;
    }
  }

  private async onReady(): Promise<void> {
    const caller = this.caller!;
    try {
      this.meter = await openVoiceMeter(caller.ctx, caller.kb.id, caller.chatSessionId);
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
    this.setState('listening');
  }

  private async onReconnected(): Promise<void> {
    try {
      await this.storage;
      await this.seed();
    } catch (err) {
      this.log.error({ err }, 'voice conversation could not be re-seeded');
      return void (await this.fail('upstream_error'));
    }
    if (this.phase !== 'ready') return;
    this.reconnecting = false;
    this.awaitingSince = null;
    this.log.info('voice upstream reconnected');
    this.setState('listening');
  }

  /** The chat session's recent turns as conversation items, oldest first (bounded: SEED_MAX_*). */
  private async seed(): Promise<void> {
    const caller = this.caller!;
    const turns = await recentTurnsForVoice(caller.ctx, caller.chatSessionId);
    for (const t of turns) {
      const item =
        t.role === 'user'
          ? { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: t.content }] }
          : { type: 'message' as const, role: 'assistant' as const, content: [{ type: 'output_text' as const, text: t.content }] };
      this.sendUpstream({ type: 'conversation.item.create', item });
    }
  }

  private onSpeechStarted(itemId: string): void {
    const now = performance.now();
    const old = this.turn;
    const item = old.item;
    if (item && !old.stored && now < item.startsAt + item.ms + PLAYBACK_SLACK_MS) {
      // Barge-in: the browser clears its queue and reports how much played; stored is what was heard.
      if (old.commitTimer) clearTimeout(old.commitTimer);
      if (this.pendingInterrupt) this.onInterrupted(this.estimatePlayed(this.pendingInterrupt.item, now));
      const timer = setTimeout(() => {
        if (this.pendingInterrupt?.turn === old) this.onInterrupted(this.estimatePlayed(item, performance.now()));
      }, INTERRUPTED_WAIT_MS);
      timer.unref();
      this.pendingInterrupt = { turn: old, item, timer };
      this.playbackEndsAt = now;
      this.send({ type: 'interrupt' });
    } else {
      this.abandonTurn();
    }
    // Responses of the old turn that are still waiting on tools must not answer the old question now.
    for (const r of this.responses.values()) r.abandoned = true;
    let done!: () => void;
    const userDone = new Promise<void>((resolve) => (done = resolve));
    this.userTurns.set(itemId, () => {
      this.userTurns.delete(itemId);
      done();
    });
    this.turn = newTurn(Promise.race([userDone, new Promise<void>((r) => setTimeout(r, USER_TRANSCRIPT_WAIT_MS).unref())]));
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

  /** The turn's audio item for this delta; a new item closes the previous one as a finished spoken part. */
  private spokenItem(responseId: string, itemId: string): SpokenItem {
    const t = this.turn;
    if (t.item?.itemId === itemId) return t.item;
    if (t.item?.text.trim()) t.prior.push(t.item.text.trim());
    const now = performance.now();
    t.item = { itemId, responseId, text: '', startsAt: Math.max(now, this.playbackEndsAt), ms: 0 };
    return t.item;
  }

  private onAudioDelta(responseId: string, itemId: string, base64: string): void {
    const pcm = Buffer.from(base64, 'base64');
    const now = performance.now();
    const item = this.spokenItem(responseId, itemId);
    if (item.ms === 0) this.setState('speaking');
    const ms = pcm.length / BYTES_PER_MS;
    item.ms += ms;
    this.playbackEndsAt = Math.max(now, this.playbackEndsAt) + ms;
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

  private onResponseDone(response: RealtimeResponse): void {
    const id = response.id ?? '';
    const r = this.responses.get(id);
    this.responses.delete(id);
    this.addUsage(response);
    const status = response.status ?? 'completed';
    const t = this.turn;
    if (r) {
      r.done = true;
      r.status = status;
    }
    if (this.retryCreate) {
      this.retryCreate = false;
      this.sendUpstream({ type: 'response.create', event_id: this.eventId('response_create') });
    }
    if (status === 'failed') {
      this.log.warn({ statusDetails: response.status_details }, 'voice response failed');
      this.send({ type: 'notice', code: 'answer_failed', message: NOTICE_MESSAGES.answer_failed });
      this.abandonTurn();
    } else if (status === 'completed' && r?.hadCalls) {
      // The tool-call response: a preamble may have been spoken; the answer comes after the tools.
      this.followUp(id, r);
    } else if (status === 'completed' || status === 'incomplete') {
      if (status === 'incomplete') {
        this.log.info({ statusDetails: response.status_details }, 'voice response incomplete');
        t.incomplete = true;
        const reason = response.status_details?.reason;
        this.send({ type: 'notice', code: 'answer_incomplete', message: reason === 'content_filter' ? "I can't continue that answer." : NOTICE_MESSAGES.answer_incomplete });
      }
      this.finishTurn(t);
    }
    // cancelled: barge-in or stop; what was heard is stored by onInterrupted / end().
    if (this.toolCallsRunning === 0 && this.responses.size === 0) {
      this.awaitingSince = null;
      const left = this.playbackEndsAt - performance.now();
      if (left <= 0 || this.state !== 'speaking') this.setState('listening');
      else {
        const item = t.item;
        setTimeout(() => {
          if (this.turn.item === item && this.phase === 'ready' && this.responses.size === 0) this.setState('listening');
        }, left).unref();
      }
    }
  }

  /** The model finished answering: the visitor sees the answer and its sources now; it is stored once it has played. */
  private finishTurn(t: Turn): void {
    t.finished = true;
    const text = this.turnText(t, null);
    if (text) {
      const citations = citedSources(text, t.sources).map(toWidgetCitation);
      this.send({ type: 'citations', citations });
      this.send({ type: 'transcript', role: 'assistant', text, final: true });
    }
    const left = Math.max(0, this.playbackEndsAt - performance.now());
    t.commitTimer = setTimeout(() => this.commit(t, null), left);
    t.commitTimer.unref();
  }

  /** The turn's answer as heard: every finished part, and the current item cut at `playedMs` (null: all of it). */
  private turnText(t: Turn, playedMs: number | null): string {
    const item = t.item;
    const last = item ? (playedMs === null || item.ms <= 0 ? item.text.trim() : heardPart(item.text, playedMs / item.ms)) : '';
    return [...t.prior, last].filter(Boolean).join(' ').trim();
  }

  /** Stores the turn's answer once: all of it, or what played (`playedMs` of its current item). */
  private commit(t: Turn, playedMs: number | null): void {
    if (t.stored) return;
    t.stored = true;
    if (t.commitTimer) clearTimeout(t.commitTimer);
    const text = this.turnText(t, playedMs);
    if (!text) return;
    const cut = playedMs !== null && t.item !== null && playedMs < t.item.ms;
    const citations = citedSources(text, t.sources).map(toWidgetCitation);
    this.store('assistant', text, citations, t.userDone, cut || t.incomplete || !t.finished);
  }

  /** Wall-clock estimate of what the browser has played of `item` (used when it cannot tell us). */
  private estimatePlayed(item: SpokenItem, now: number): number {
    return Math.max(0, Math.min(item.ms, now - item.startsAt));
  }

  /** The current turn ends without an answer to wait for: store what was heard of it so far. */
  private abandonTurn(): void {
    const t = this.turn;
    if (this.pendingInterrupt) this.onInterrupted(this.estimatePlayed(this.pendingInterrupt.item, performance.now()));
    if (t.stored) return;
    if (t.finished && t.item && performance.now() >= t.item.startsAt + t.item.ms) return this.commit(t, null);
    this.commit(t, t.item ? this.estimatePlayed(t.item, performance.now()) : null);
  }

  private onToolCall(responseId: string, callId: string, name: string, args: string): void {
    const r = this.responses.get(responseId) ?? { calls: 0, hadCalls: false, done: false, followed: false, abandoned: false, status: null };
    this.responses.set(responseId, r);
    r.calls++;
    r.hadCalls = true;
    const turn = this.turn;
    this.toolCallsRunning++;
    this.setState('thinking');
    this.toolQueue = this.toolQueue.then(async () => {
      const output = await this.runTool(turn, name, args);
      this.toolCallsRunning--;
      r.calls--;
      if (this.phase === 'ended') return;
      this.sendUpstream({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
      this.followUp(responseId, r);
    });
  }

  /**
   * After a tool-call response, ask for the answer once every call has its output AND the response's
   * own response.done has come: OpenAI refuses a response.create while a response is active.
   */
  private followUp(responseId: string, r: ResponseState): void {
    if (!r.done || r.calls > 0 || r.followed || !r.hadCalls) return;
    r.followed = true;
    this.responses.delete(responseId);
    if (r.abandoned || r.status !== 'completed' || this.phase === 'ended') return;
    this.sendUpstream({ type: 'response.create', event_id: this.eventId('response_create') });
    this.awaitingSince = performance.now();
  }

  private async runTool(turn: Turn, name: string, args: string): Promise<string> {
    const caller = this.caller!;
    try {
      if (name !== VOICE_TOOL_NAME) return JSON.stringify({ error: `Unknown tool ${name}` });
      const result = await searchKnowledgeForVoice(caller.ctx, caller.kb, args, turn.sources.length + 1);
      turn.sources.push(...result.sources);
      return result.output;
    } catch (err) {
      this.log.error({ err }, 'voice knowledge search failed');
      return JSON.stringify({ found: false, error: 'The knowledge base could not be searched right now' });
    }
  }

  private addUsage(response: RealtimeResponse): void {
    const u = response.usage;
    if (!u) return;
    this.tokens.input += u.input_tokens ?? 0;
    this.tokens.output += u.output_tokens ?? 0;
    this.tokens.cachedInput += u.input_token_details?.cached_tokens ?? 0;
    this.tokens.audioInput += u.input_token_details?.audio_tokens ?? 0;
    this.tokens.audioOutput += u.output_token_details?.audio_tokens ?? 0;
  }

  private eventId(kind: string): string {
    return `${kind}_${this.request.requestId.slice(0, 8)}_${++this.eventSeq}`;
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
  private store(role: 'user' | 'assistant', content: string, citations: unknown[], after: Promise<void> = Promise.resolve(), interrupted = false): void {
    const caller = this.caller!;
    this.storage = this.storage
      .then(() => after)
      .then(async () => {
        const at = Math.max(Date.now(), this.lastStoredAt + 1);
        this.lastStoredAt = at;
        await appendVoiceMessage(caller.ctx, caller.chatSessionId, { role, content, citations, at: new Date(at), interrupted });
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
    // Stop or a drop in the middle of an answer: what had played is stored, marked interrupted.
    if (this.phase === 'ready') this.abandonTurn();
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
          tokens: this.tokens,
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
