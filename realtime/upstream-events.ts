/**
 * The Realtime API's server events of one voice session, turned into what the gateway does: turn
 * tracking, audio to the browser, tool calls, the visitor's state indicator, stored turns and
 * metering. The session owns the sockets and its lifecycle; it hands every parsed event here.
 */
import type { Logger } from '../src/logger';
import type { Citation } from '../src/services/rag/answer-events';
import { citedSources } from '../src/services/voice/voice-knowledge-tool';
import { toWidgetCitation } from '../src/services/widget/widget-citation';
import { pcmMs, type AudioRelay, type VoiceObserver } from './audio-relay';
import type { ConversationStore } from './conversation-store';
import { NOTICE_MESSAGES, type ServerMessage, type VoiceErrorCode, type VoiceState } from './protocol';
import { ToolCalls, type ToolRunner } from './tool-calls';
import { TurnTracker, type TurnDecision } from './turn-tracker';
import type { RealtimeResponse, UpstreamClientEvent, UpstreamEvent } from './upstream';
import type { VoiceMetering } from './voice-metering';

/** What the handler needs of its session. */
export interface VoiceSessionPort {
  readonly log: Logger;
  isEnded(): boolean;
  isReady(): boolean;
  /** Ready and not reconnecting: the upstream session is set up. */
  isLive(): boolean;
  /** The upstream applied our session.update (first connect or reconnect). */
  sessionUpdated(): void;
  fail(code: VoiceErrorCode): void;
  /** The browser stopped reading even control messages. */
  browserStuck(): void;
  toBrowser(message: ServerMessage): void;
  toUpstream(event: UpstreamClientEvent): void;
  /** An upstream event is owed from `since` (null: nothing is expected). */
  awaitUpstream(since: number | null): void;
  eventId(kind: string): string;
}

export class UpstreamEvents {
  private readonly turns = new TurnTracker();
  private readonly tools: ToolCalls;
  private state: VoiceState | null = null;
  /** A response.create lost the race to a server-started response: send it again once that one is done. */
  private retryCreate = false;

  constructor(
    private readonly port: VoiceSessionPort,
    private readonly relay: AudioRelay,
    private readonly store: ConversationStore,
    private readonly metering: VoiceMetering,
    runTool: ToolRunner,
    private readonly observer?: VoiceObserver,
  ) {
    this.tools = new ToolCalls(runTool, {
      toUpstream: (event) => port.toUpstream(event),
      isEnded: () => port.isEnded(),
      answer: () => {
        port.toUpstream({ type: 'response.create', event_id: port.eventId('response_create') });
        port.awaitUpstream(performance.now());
      },
    });
  }

  /** Our own knowledge search is running (a slow search is not a stalled upstream). */
  get searching(): boolean {
    return this.tools.searching;
  }

  setState(state: VoiceState): void {
    if (this.state === state) return;
    this.state = state;
    this.port.toBrowser({ type: 'state', state });
  }

  /** The browser reports what it played of an interrupted answer. */
  interrupted(playedMs: number): void {
    this.apply(this.turns.interrupted(playedMs));
  }

  /** The current turn ends here (stop, a drop, the end): what was heard of it is stored. */
  abandonTurn(): void {
    this.apply(this.turns.abandon(performance.now()));
  }

  /** The upstream is gone; a new connection starts with no response open. */
  reconnecting(): void {
    this.abandonTurn();
    this.tools.reset();
  }

  handle(event: UpstreamEvent, receivedAt: number): void {
    const port = this.port;
    switch (event.type) {
      case 'session.updated':
        return port.sessionUpdated();
      case 'error': {
        const e = event.error;
        if (e.code === 'conversation_already_has_active_response') {
          // A response started by the server (VAD) won the race: ask again once it is done.
          port.log.info({ error: e }, 'voice upstream already had an active response; retrying after it');
          this.retryCreate = true;
          return;
        }
        // Our own requests can be refused one by one (e.g. a truncate after the item ended); the
        // session goes on. Anything else, or any error before the session is set up, ends it.
        if (port.isLive() && e.type === 'invalid_request_error' && e.code !== 'beta_api_shape_disabled') {
          port.log.warn({ error: e }, 'voice upstream refused an event');
          return;
        }
        port.log.warn({ error: e }, 'voice upstream error');
        return port.fail('upstream_error');
      }
      case 'rate_limits.updated':
        // Informational: OpenAI reserves the response's tokens up front; a response over the limit
        // comes back as response.done status "failed", which is handled there.
        port.log.debug({ rateLimits: event.rate_limits }, 'voice upstream rate limits');
        return;
      case 'input_audio_buffer.speech_started':
        this.apply(this.turns.speechStarted(event.item_id, performance.now()));
        this.tools.abandonAll();
        return this.setState('listening');
      case 'input_audio_buffer.speech_stopped':
        port.awaitUpstream(performance.now());
        return this.setState('thinking');
      case 'conversation.item.input_audio_transcription.delta':
        if (event.delta) port.toBrowser({ type: 'transcript', role: 'user', delta: event.delta });
        return;
      case 'conversation.item.input_audio_transcription.completed':
        return this.apply(this.turns.questionTranscribed(event.item_id, event.transcript));
      case 'conversation.item.input_audio_transcription.failed':
        return this.apply(this.turns.questionTranscribed(event.item_id, null));
      case 'response.created':
        if (event.response.id) this.tools.responseCreated(event.response.id);
        return port.awaitUpstream(performance.now());
      case 'response.function_call_arguments.done':
        this.tools.call(event.response_id, event.call_id, event.name, event.arguments, this.turns.sources());
        return this.setState('thinking');
      case 'response.output_audio.delta':
        this.onAudio(event.item_id, event.delta);
        this.observer?.relayed(performance.now() - receivedAt);
        return;
      case 'response.output_audio_transcript.delta':
        this.turns.transcriptDelta(event.item_id, event.delta, performance.now());
        return port.toBrowser({ type: 'transcript', role: 'assistant', delta: event.delta });
      case 'response.output_audio_transcript.done':
        return this.turns.transcriptDone(event.item_id, event.transcript);
      case 'response.done':
        return this.onResponseDone(event.response);
      default:
        return;
    }
  }

  private onAudio(itemId: string, base64: string): void {
    const pcm = Buffer.from(base64, 'base64');
    if (this.turns.audio(itemId, pcmMs(pcm.length), performance.now())) this.setState('speaking');
    if (this.relay.toBrowser(pcm) === 'stuck') this.port.browserStuck();
  }

  private onResponseDone(response: RealtimeResponse): void {
    const port = this.port;
    const status = response.status ?? 'completed';
    const finished = this.tools.responseDone(response.id ?? '', status);
    this.metering.count(response);
    if (this.retryCreate) {
      this.retryCreate = false;
      port.toUpstream({ type: 'response.create', event_id: port.eventId('response_create') });
    }
    const now = performance.now();
    if (status === 'failed') {
      port.log.warn({ statusDetails: response.status_details }, 'voice response failed');
      port.toBrowser({ type: 'notice', code: 'answer_failed', message: NOTICE_MESSAGES.answer_failed });
      this.apply(this.turns.abandon(now));
    } else if (status === 'completed' && finished.hadCalls) {
      // The tool-call response: a preamble may have been spoken; the answer comes after the tools.
      finished.followUp();
    } else if (status === 'completed' || status === 'incomplete') {
      if (status === 'incomplete') {
        port.log.info({ statusDetails: response.status_details }, 'voice response incomplete');
        const reason = response.status_details?.reason;
        port.toBrowser({ type: 'notice', code: 'answer_incomplete', message: reason === 'content_filter' ? "I can't continue that answer." : NOTICE_MESSAGES.answer_incomplete });
      }
      this.apply(this.turns.answered(status === 'incomplete', now));
    }
    // cancelled: barge-in or stop; what was heard is stored when the browser reports it, or at the end.
    if (!this.tools.idle) return;
    port.awaitUpstream(null);
    const left = this.turns.playbackEndsAt - now;
    if (left <= 0 || this.state !== 'speaking') return this.setState('listening');
    const item = this.turns.currentItemId;
    setTimeout(() => {
      if (this.turns.currentItemId === item && port.isReady() && this.tools.openResponses === 0) this.setState('listening');
    }, left).unref();
  }

  private apply(decisions: TurnDecision[]): void {
    for (const d of decisions) {
      switch (d.type) {
        case 'interrupt':
          this.port.toBrowser({ type: 'interrupt' });
          break;
        case 'await-played':
          this.later(d.at, () => this.apply(this.turns.playedUnreported(d.turn, performance.now())));
          break;
        case 'truncate':
          this.port.toUpstream({ type: 'conversation.item.truncate', item_id: d.itemId, content_index: 0, audio_end_ms: d.audioEndMs });
          break;
        case 'expect-question':
          this.store.expectQuestion(d.turn, Math.max(0, d.until - performance.now()));
          break;
        case 'question-settled':
          this.store.questionSettled(d.turn);
          break;
        case 'store-question':
          this.port.toBrowser({ type: 'transcript', role: 'user', text: d.text, final: true });
          this.store.question(d.text);
          break;
        case 'show-answer':
          this.port.toBrowser({ type: 'citations', citations: widgetCitations(d.text, d.sources) });
          this.port.toBrowser({ type: 'transcript', role: 'assistant', text: d.text, final: true });
          break;
        case 'commit-at':
          this.later(d.at, () => this.apply(this.turns.playedOut(d.turn)));
          break;
        case 'store-answer':
          this.store.answer(d.turn, d.text, widgetCitations(d.text, d.sources), d.interrupted);
          break;
      }
    }
  }

  /** Runs `fn` at `at` (performance.now() time) unless the session has ended by then. */
  private later(at: number, fn: () => void): void {
    setTimeout(() => this.port.isEnded() || fn(), Math.max(0, at - performance.now())).unref();
  }
}

const widgetCitations = (text: string, sources: Citation[]) => citedSources(text, sources).map(toWidgetCitation);
