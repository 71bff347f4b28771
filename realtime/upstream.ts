/**
 * The upstream Realtime connection (OpenAI's GA WebSocket protocol): `ws` directly, with the
 * `openai` package's event types only (see docs/voice.md for why not its client). The gateway
 * writes the whole session configuration; nothing the browser sends reaches this socket except
 * audio, re-encoded by the gateway.
 */
import type { RealtimeClientEvent, RealtimeResponse, RealtimeServerEvent, RealtimeSessionCreateRequest } from 'openai/resources/realtime/realtime';

export type { RealtimeResponse };
import WebSocket from 'ws';
import type { Config } from '../src/config';
import { VOICE_INSTRUCTIONS, VOICE_TOOL } from '../src/services/voice/voice-knowledge-tool';
import { SAMPLE_RATE } from './protocol';

export type UpstreamEvent = RealtimeServerEvent;
export type UpstreamClientEvent = RealtimeClientEvent;

/** Transcription model for the visitor's speech (shown live and stored in the chat session). */
const TRANSCRIBE_MODEL = 'gpt-4o-mini-transcribe';

export function sessionConfig(model: string): RealtimeSessionCreateRequest {
  return {
    type: 'realtime',
    model,
    instructions: VOICE_INSTRUCTIONS,
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: SAMPLE_RATE },
        transcription: { model: TRANSCRIBE_MODEL },
        noise_reduction: { type: 'near_field' },
        turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, create_response: true, interrupt_response: true },
      },
      output: { format: { type: 'audio/pcm', rate: SAMPLE_RATE }, voice: 'marin' },
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
