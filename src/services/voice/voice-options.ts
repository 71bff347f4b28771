/**
 * The values voice settings accept (the Realtime API's own, openai@6.49 types), without zod, so the
 * dashboard's bundle can list them in its form from the same source the server validates with.
 */
export const TURN_DETECTIONS = ['server_vad', 'semantic_vad'] as const;
export const EAGERNESS_LEVELS = ['low', 'medium', 'high', 'auto'] as const;
export const VOICE_NAMES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const;
export const MAX_INSTRUCTIONS_SUFFIX = 1_000;
