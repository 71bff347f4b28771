/**
 * The upstream Realtime connection (OpenAI's GA WebSocket protocol): `ws` directly, with the
 * `openai` package's event types only (see docs/decisions.md for why not its client). The gateway
 * writes the whole session configuration; nothing the browser sends reaches this socket except
 * audio, re-encoded by the gateway.
 */
import type { RealtimeAudioInputTurnDetection, RealtimeClientEvent, RealtimeResponse, RealtimeServerEvent, RealtimeSessionCreateRequest } from 'openai/resources/realtime/realtime';

export type { RealtimeResponse };
import WebSocket from 'ws';
import type { Config } from '../src/config';
import { VOICE_INSTRUCTIONS, VOICE_TOOL } from '../src/services/voice/voice-knowledge-tool';
import { DEFAULT_VOICE_SETTINGS, type VoiceSettings } from '../src/services/voice/voice-settings';
import { SAMPLE_RATE } from './protocol';

export type UpstreamEvent = RealtimeServerEvent;
export type UpstreamClientEvent = RealtimeClientEvent;

/** Transcription model for the visitor's speech (shown live and stored in the chat session). */
const TRANSCRIBE_MODEL = 'gpt-4o-mini-transcribe';

export function sessionConfig(model: string, settings: VoiceSettings = DEFAULT_VOICE_SETTINGS): RealtimeSessionCreateRequest {
  const turnDetection: RealtimeAudioInputTurnDetection =
    settings.turn_detection === 'semantic_vad'
      ? { type: 'semantic_vad', eagerness: settings.eagerness, create_response: true, interrupt_response: true }
      : { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, create_response: true, interrupt_response: true };
  return {
    type: 'realtime',
    model,
    instructions: settings.instructions_suffix ? `${VOICE_INSTRUCTIONS}\n${settings.instructions_suffix}` : VOICE_INSTRUCTIONS,
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: SAMPLE_RATE },
        transcription: { model: TRANSCRIBE_MODEL },
        noise_reduction: { type: 'near_field' },
        turn_detection: turnDetection,
      },
      output: { format: { type: 'audio/pcm', rate: SAMPLE_RATE }, voice: settings.voice },
    },
    tools: [VOICE_TOOL],
    tool_choice: 'auto',
    max_output_tokens: 1024,
  };
}

export function connectUpstream(realtime: NonNullable<Config['realtime']>, opts: { connectTimeoutMs: number; maxPayload: number }): WebSocket {
  const url = new URL(realtime.url);
  url.searchParams.set('model', realtime.model);
  return new WebSocket(url, {
    headers: { Authorization: `Bearer ${realtime.apiKey}` },
    perMessageDeflate: false,
    handshakeTimeout: opts.connectTimeoutMs,
    maxPayload: opts.maxPayload,
  });
}
