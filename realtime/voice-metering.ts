/**
 * What a voice session is billed: one voice_sessions row, opened when the upstream is ready and
 * closed when the session ends, with the audio each way and the tokens every response reported.
 */
import type { AppDeps } from '../src/context';
import type { VoiceCaller } from '../src/services/voice/authorize-voice';
import { closeVoiceMeter, noTokens, openVoiceMeter, type VoiceMeter } from '../src/services/voice/voice-usage';
import type { RealtimeResponse } from './upstream';

export interface VoiceMetering {
  open(): Promise<void>;
  /** Adds a finished response's token usage. */
  count(response: RealtimeResponse): void;
  /** Closes the meter with how the session ended: the seconds metered, or null if it never opened. */
  close(reason: string, audio: { inSeconds: number; outSeconds: number }): Promise<number | null>;
}

export function voiceSessionMeter(deps: AppDeps, caller: VoiceCaller): VoiceMetering {
  let meter: VoiceMeter | null = null;
  const tokens = noTokens();
  return {
    async open() {
      meter = await openVoiceMeter(caller.ctx, caller.kb.id, caller.chatSessionId);
    },
    count(response) {
      const u = response.usage;
      if (!u) return;
      tokens.input += u.input_tokens ?? 0;
      tokens.output += u.output_tokens ?? 0;
      tokens.cachedInput += u.input_token_details?.cached_tokens ?? 0;
      tokens.audioInput += u.input_token_details?.audio_tokens ?? 0;
      tokens.audioOutput += u.output_token_details?.audio_tokens ?? 0;
    },
    async close(reason, audio) {
      if (!meter) return null;
      return closeVoiceMeter(deps, meter, { audioInSeconds: audio.inSeconds, audioOutSeconds: audio.outSeconds, reason, tokens });
    },
  };
}
