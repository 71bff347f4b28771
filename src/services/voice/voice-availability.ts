/**
 * Whether an organisation's widget may offer voice, and if not, why: decided here only, so the
 * settings DTO, GraphQL, tRPC, the widget session response and the gateway's refusals agree.
 * Order matters: the first failing condition is the reason shown.
 */
import type { Organization } from '../../../db/types';
import type { Config } from '../../config';
import { planLimits } from '../plans';

export type VoiceUnavailableCode = 'voice_not_in_plan' | 'voice_disabled' | 'voice_unavailable';

export type VoiceAvailability =
  | { available: true; code: null; reason: null }
  | { available: false; code: VoiceUnavailableCode; reason: string };

export const VOICE_UNAVAILABLE_MESSAGES: Record<VoiceUnavailableCode, string> = {
  voice_not_in_plan: 'Voice is not included in this plan; it needs the Starter plan or above',
  voice_disabled: 'Voice is switched off in the organisation settings',
  voice_unavailable: 'No realtime voice provider is configured on this server (set OPENAI_API_KEY)',
};

const no = (code: VoiceUnavailableCode): VoiceAvailability => ({ available: false, code, reason: VOICE_UNAVAILABLE_MESSAGES[code] });

/** `providerRefusal`: why the provider refused this server's key (voice-provider-status), if it did. */
export function voiceAvailability(org: Pick<Organization, 'plan' | 'settings'>, config: Pick<Config, 'realtime'>, providerRefusal: string | null = null): VoiceAvailability {
  if (!planLimits(org.plan).voice) return no('voice_not_in_plan');
  if (org.settings?.voice_enabled !== true) return no('voice_disabled');
  if (!config.realtime) return no('voice_unavailable');
  if (providerRefusal) return { available: false, code: 'voice_unavailable', reason: providerRefusal };
  return { available: true, code: null, reason: null };
}

/**
 * Why the Voice switch cannot be turned on (plan below Starter, or no provider on this server), in
 * words an administrator can act on; null when it can. Unlike `voiceAvailability`, the setting
 * itself is not a reason: the dashboard shows this under a disabled switch.
 */
export function voiceBlockedReason(org: Pick<Organization, 'plan'>, config: Pick<Config, 'realtime'>, providerRefusal: string | null = null): string | null {
  if (!planLimits(org.plan).voice) return `Voice is included from the Starter plan; this organisation is on ${org.plan[0]!.toUpperCase()}${org.plan.slice(1)}.`;
  if (!config.realtime) return 'Voice needs a realtime provider: set OPENAI_API_KEY on the server.';
  if (providerRefusal) return providerRefusal;
  return null;
}
