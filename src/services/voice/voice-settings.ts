/**
 * Voice settings of an organisation (Workspace -> Settings -> Voice): how the model detects the end
 * of a turn, its voice, and text appended to the gateway's instructions. One zod schema here is the
 * source of truth for every transport; values are the Realtime API's own (openai@6.49 types).
 */
import { z } from 'zod';

export const VOICE_NAMES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const;
export const MAX_INSTRUCTIONS_SUFFIX = 1_000;

export const ZVoiceSettings = z
  .object({
    /** `server_vad`: silence ends the turn; `semantic_vad`: a model judges that the visitor has finished. */
    turn_detection: z.enum(['server_vad', 'semantic_vad']),
    /** semantic_vad only: how soon it answers (low waits up to 8 s, high 2 s). */
    eagerness: z.enum(['low', 'medium', 'high', 'auto']),
    voice: z.enum(VOICE_NAMES),
    /** Added after the gateway's own instructions (it cannot replace the knowledge-base rules). */
    instructions_suffix: z.string().trim().max(MAX_INSTRUCTIONS_SUFFIX, `at most ${MAX_INSTRUCTIONS_SUFFIX} characters`),
  })
  .strict();
export type VoiceSettings = z.infer<typeof ZVoiceSettings>;
export const ZVoiceSettingsUpdate = ZVoiceSettings.partial().strict();

export const DEFAULT_VOICE_SETTINGS: VoiceSettings = { turn_detection: 'server_vad', eagerness: 'auto', voice: 'marin', instructions_suffix: '' };

/** Stored settings over the defaults; anything stored that no longer validates falls back to its default. */
export function resolveVoiceSettings(stored: unknown): VoiceSettings {
  const parsed = ZVoiceSettingsUpdate.safeParse(stored ?? {});
  return { ...DEFAULT_VOICE_SETTINGS, ...(parsed.success ? parsed.data : {}) };
}
