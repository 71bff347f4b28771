/** What the visitor reads about voice: each state, and each way a voice conversation can fail. */
import type { VoiceState } from './voice-types';

export const VOICE_STATE_TEXT: Record<VoiceState, string> = {
  connecting: 'Connecting…',
  listening: 'Listening… ask your question',
  thinking: 'Thinking…',
  speaking: 'Speaking… talk to interrupt',
};

const TYPE_INSTEAD = 'You can still type your question.';

/** Keyed by the gateway's protocol codes, plus the widget's own (microphone_*, connection_lost, ...). */
const MESSAGES: Record<string, string> = {
  microphone_denied: `Microphone access is blocked. Allow the microphone for this site in your browser to talk. ${TYPE_INSTEAD}`,
  microphone_missing: `No microphone was found. ${TYPE_INSTEAD}`,
  microphone_error: `The microphone couldn't be started. ${TYPE_INSTEAD}`,
  audio_error: `Audio couldn't be started in this browser. ${TYPE_INSTEAD}`,
  load_error: "Voice couldn't be loaded. Check your connection and try again.",
  session_error: "Can't reach the assistant right now. Check your connection and try again.",
  connection_lost: 'The voice connection was lost. Check your connection and try again.',
  invalid_token: 'Your voice session expired. Press the microphone to start again.',
  // The text chat checks the same (on every message), so these two close the whole panel, not just voice.
  origin_not_allowed: 'This website is no longer allowed to use this assistant.',
  voice_not_in_plan: `Voice conversations aren't included in this organisation's plan. ${TYPE_INSTEAD}`,
  voice_disabled: `Voice conversations are switched off for this assistant. ${TYPE_INSTEAD}`,
  widget_disabled: 'This assistant has been switched off on this website.',
  voice_unavailable: `Voice isn't available for this assistant right now. ${TYPE_INSTEAD}`,
  too_many_voice_sessions: `Too many voice conversations are running right now. Please try again in a few minutes. ${TYPE_INSTEAD}`,
  upstream_error: `The voice service isn't responding right now. Please try again later. ${TYPE_INSTEAD}`,
  session_too_long: 'This voice conversation reached its maximum length. Press the microphone to continue.',
  idle_timeout: 'The voice conversation ended because nothing was said for a while. Press the microphone to start again.',
  protocol_error: 'The voice connection failed. Please try again.',
  shutting_down: 'The voice service is restarting. Please try again in a moment.',
  background: 'Voice stopped while the page was in the background. Press the microphone to talk again.',
};

export function voiceMessage(code: string): string {
  return MESSAGES[code] ?? `The voice conversation stopped unexpectedly. ${TYPE_INSTEAD}`;
}

/** Refusals that a retry from this page cannot change: the microphone is hidden after them. */
export function voiceRefusedForGood(code: string): boolean {
  return ['voice_not_in_plan', 'voice_disabled', 'voice_unavailable'].includes(code);
}

/** Refusals the text chat would meet too (widget switched off, website no longer allowed): the chat is unavailable. */
export function voiceRefusalClosesChat(code: string): boolean {
  return code === 'widget_disabled' || code === 'origin_not_allowed';
}
