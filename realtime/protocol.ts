/**
 * Widget <-> gateway voice protocol v1 (README, "Voice"): binary frames are raw pcm16 LE mono
 * 24 kHz both ways; JSON text frames carry control. Refusals and faults are one `error` message,
 * then a close whose code says the class of failure and whose reason is the error code.
 */
import { z } from 'zod';
import type { WidgetCitation } from '../src/services/widget/widget-citation';

export const VOICE_PATH = '/api/widget/voice';
export const VOICE_SUBPROTOCOL = 'groundwork.voice.v1';
export const SAMPLE_RATE = 24_000;
/** 100 ms of pcm16 at 24 kHz is 4,800 bytes; twice that is the most a frame may carry. */
export const MAX_AUDIO_FRAME_BYTES = 9_600;
/** JSON control messages are tiny; anything bigger is not ours. */
export const MAX_CONTROL_FRAME_BYTES = 1_024;

export const CLOSE = {
  invalid_token: 4401,
  origin_not_allowed: 4403,
  voice_not_in_plan: 4403,
  voice_disabled: 4403,
  widget_disabled: 4403,
  voice_unavailable: 4503,
  too_many_voice_sessions: 4429,
  upstream_error: 4502,
  session_too_long: 4408,
  idle_timeout: 4408,
  protocol_error: 4400,
  shutting_down: 4001,
} as const;
export type VoiceErrorCode = keyof typeof CLOSE;
export const NORMAL_CLOSE = 1000;

export const ZClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('stop') }).strict(),
  z.object({ type: z.literal('interrupted'), played_ms: z.number().finite().min(0).max(24 * 3600 * 1000) }).strict(),
]);
export type ClientMessage = z.infer<typeof ZClientMessage>;

export type VoiceState = 'listening' | 'thinking' | 'speaking';

export type ServerMessage =
  | { type: 'ready'; session_id: string }
  | { type: 'state'; state: VoiceState }
  | { type: 'transcript'; role: 'user' | 'assistant'; delta: string }
  | { type: 'transcript'; role: 'user' | 'assistant'; text: string; final: true }
  | { type: 'citations'; citations: WidgetCitation[] }
  | { type: 'interrupt' }
  /** Something the visitor should know while the conversation goes on (an answer that failed or was cut short, a reconnect). */
  | { type: 'notice'; code: VoiceNoticeCode; message: string }
  | { type: 'error'; code: VoiceErrorCode; message: string };

/** The visitor's message when OpenAI refused the server's key: nothing they can retry. */
export const VOICE_KEY_REFUSED_MESSAGE = 'Voice is not available on this site right now; please type your question instead';

export type VoiceNoticeCode = 'answer_failed' | 'answer_incomplete' | 'reconnecting';

export const NOTICE_MESSAGES: Record<VoiceNoticeCode, string> = {
  answer_failed: "Sorry, I couldn't answer that just now. Please ask again.",
  answer_incomplete: 'That answer was cut short.',
  reconnecting: 'The voice connection dropped; reconnecting…',
};

/** Messages the visitor sees for failures the gateway itself detects (refusals carry the service's). */
export const ERROR_MESSAGES: Partial<Record<VoiceErrorCode, string>> = {
  upstream_error: 'The voice service is not answering right now; please type your question instead',
  session_too_long: 'This voice conversation reached its maximum length; start a new one to continue',
  idle_timeout: 'The voice conversation ended because no audio arrived from the microphone',
  shutting_down: 'The server is restarting; start the voice conversation again in a moment',
};
