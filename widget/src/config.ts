import type { Theme, WidgetConfig } from './types';

/** Same rules as the server: organisation slugs and KB ids. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
const KB_ID = /^kb_[0-9A-Za-z]{1,64}$/;
const THEMES: readonly Theme[] = ['light', 'dark', 'auto'];
/** How long a voice conversation may go on in a background tab (data-voice-background-seconds). */
export const DEFAULT_VOICE_BACKGROUND_SECONDS = 30;
const MAX_VOICE_BACKGROUND_SECONDS = 600;

/**
 * Reads the widget's own script tag. Problems that make the widget useless (no org, no KB, no
 * script URL) are returned together so the site owner sees one error naming all of them.
 */
export function readConfig(script: HTMLScriptElement | null): { config: WidgetConfig } | { problems: string[] } {
  if (!script) return { problems: ['its <script> tag could not be found (load widget.js with a plain <script src=... defer> tag)'] };
  const problems: string[] = [];
  const org = (script.getAttribute('data-org') ?? '').trim();
  const kb = (script.getAttribute('data-kb') ?? '').trim();
  if (!org) problems.push('data-org is missing (set it to your organisation slug)');
  else if (!SLUG.test(org)) problems.push(`data-org="${org}" is not an organisation slug (lowercase letters, digits and dashes)`);
  if (!kb) problems.push('data-kb is missing (set it to the knowledge base id, kb_...)');
  else if (!KB_ID.test(kb)) problems.push(`data-kb="${kb}" is not a knowledge base id (kb_...)`);
  let base = '';
  try {
    base = new URL('../', script.src).href;
  } catch {
    problems.push('the script has no usable src URL');
  }
  if (problems.length > 0) return { problems };

  const rawTheme = (script.getAttribute('data-theme') ?? 'light').trim().toLowerCase();
  const theme = (THEMES as readonly string[]).includes(rawTheme) ? (rawTheme as Theme) : 'light';
  if (theme !== rawTheme) console.warn(`[Groundwork] data-theme="${rawTheme}" is not light, dark or auto; using light.`);
  const voice = script.getAttribute('data-voice')?.trim().toLowerCase() === 'true';
  return { config: { org, kb, theme, voice, voiceBackgroundSeconds: readVoiceBackgroundSeconds(script), base } };
}

/** Like a bad data-theme, a bad value is warned about and the default used: the widget still works. */
function readVoiceBackgroundSeconds(script: HTMLScriptElement): number {
  const raw = script.getAttribute('data-voice-background-seconds')?.trim();
  if (raw === undefined || raw === '') return DEFAULT_VOICE_BACKGROUND_SECONDS;
  if (/^\d{1,3}$/.test(raw) && Number(raw) <= MAX_VOICE_BACKGROUND_SECONDS) return Number(raw);
  console.warn(
    `[Groundwork] data-voice-background-seconds="${raw}" is not a whole number of seconds from 0 to ${MAX_VOICE_BACKGROUND_SECONDS}; using ${DEFAULT_VOICE_BACKGROUND_SECONDS}.`,
  );
  return DEFAULT_VOICE_BACKGROUND_SECONDS;
}
