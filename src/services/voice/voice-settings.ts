/**
 * Voice settings of an organisation (Workspace -> Settings -> Voice): how the model detects the end
 * of a turn, its voice, and text appended to the gateway's instructions. One zod schema here is the
 * source of truth for every transport; values are the Realtime API's own (openai@6.49 types).
 */
import { z } from 'zod';

import { EAGERNESS_LEVELS, MAX_INSTRUCTIONS_SUFFIX, TURN_DETECTIONS, VOICE_NAMES } from './voice-options';

export { MAX_INSTRUCTIONS_SUFFIX, VOICE_NAMES };

export const ZVoiceSettings = z
  .object({
    /** `server_vad`: silence ends the turn; `semantic_vad`: a model judges that the visitor has finished. */
    turn_detection: z.enum(TURN_DETECTIONS),
    /** semantic_vad only: how soon it answers (low waits up to 8 s, high 2 s). */
    eagerness: z.enum(EAGERNESS_LEVELS),
    voice: z.enum(VOICE_NAMES),
    /** Added after the gateway's own instructions (it cannot replace the knowledge-base rules). */
    instructions_suffix: z.string().trim().max(MAX_INSTRUCTIONS_SUFFIX, `at most ${MAX_INSTRUCTIONS_SUFFIX} characters`),
  })
  .strict();
export type VoiceSettings = z.infer<typeof ZVoiceSettings>;
export const ZVoiceSettingsUpdate = ZVoiceSettings.partial().strict();

export const DEFAULT_VOICE_SETTINGS: VoiceSettings = { turn_detection: 'server_vad', eagerness: 'auto', voice: 'marin', instructions_suffix: '' };

/** A change: a value sets the field, null removes it (back to the organisation's, or to the default). */
export const ZVoiceSettingsPatch = z
  .object({
    turn_detection: ZVoiceSettings.shape.turn_detection.nullable().optional(),
    eagerness: ZVoiceSettings.shape.eagerness.nullable().optional(),
    voice: ZVoiceSettings.shape.voice.nullable().optional(),
    instructions_suffix: ZVoiceSettings.shape.instructions_suffix.nullable().optional(),
  })
  .strict();
export type VoiceSettingsPatch = z.infer<typeof ZVoiceSettingsPatch>;

/** The fields a stored document sets that still validate, one by one (a stale value drops alone). */
export function storedVoiceSettings(stored: unknown): Partial<VoiceSettings> {
  if (stored === null || typeof stored !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(ZVoiceSettings.shape)) {
    const parsed = schema.safeParse((stored as Record<string, unknown>)[key]);
    if (parsed.success) out[key] = parsed.data;
  }
  return out as Partial<VoiceSettings>;
}

/** The stored fields after a patch: only what is set is kept, so a removed field inherits again. */
export function mergeVoiceSettings(stored: unknown, patch: VoiceSettingsPatch): Partial<VoiceSettings> {
  const next: Record<string, unknown> = { ...storedVoiceSettings(stored) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as Partial<VoiceSettings>;
}

/**
 * What a voice session uses: the defaults, under the organisation's stored settings, under the
 * KB's override (later layers win). Anything stored that no longer validates falls back a layer.
 */
export function resolveVoiceSettings(...layers: unknown[]): VoiceSettings {
  return Object.assign({ ...DEFAULT_VOICE_SETTINGS }, ...layers.map(storedVoiceSettings));
}
