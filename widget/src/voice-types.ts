/** The contract between the panel and the lazily loaded voice module (widget-voice.js). */
import type { Citation } from './api';

export type VoiceState = 'connecting' | 'listening' | 'thinking' | 'speaking';

/** Why a voice session ended: the visitor or the gateway stopped it, or a failure with its protocol code. */
export type VoiceEnd = { kind: 'stopped' } | { kind: 'error'; code: string; message?: string };

export type VoiceStart = {
  /** The service's base URL, ending in "/". */
  base: string;
  /** The worklet module's file name under /embed/ (with its content hash). */
  workletFile: string;
  token: string;
  /** The text chat session to continue; null starts a new one. */
  sessionId: string | null;
};

export type VoiceEvents = {
  onState(state: VoiceState): void;
  onReady(sessionId: string): void;
  /** The microphone is live (true) or released (false). */
  onMicrophone(live: boolean): void;
  onTranscript(role: 'user' | 'assistant', part: { delta: string } | { text: string }): void;
  onCitations(citations: Citation[]): void;
  /** Milliseconds of the current assistant item played, and in total this session. */
  onPlayback(itemMs: number, totalMs: number): void;
  onEnd(reason: VoiceEnd): void;
};

export type VoiceHandle = { stop(): void };

export type VoiceModule = { startVoice(start: VoiceStart, events: VoiceEvents): VoiceHandle };
