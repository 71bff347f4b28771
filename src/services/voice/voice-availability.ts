/**
 * Why voice cannot be switched on for an organisation, in words an administrator can act on, or null
 * when it can. Computed from the plan and from whether a realtime provider (OpenAI) is configured;
 * the dashboard shows it under the disabled Voice switch.
 */
import type { Organization } from '../../../db/types';
import type { Config } from '../../config';
import { planLimits } from '../plans';

export function voiceUnavailableReason(org: Pick<Organization, 'plan'>, config: Pick<Config, 'openai'>): string | null {
  if (!planLimits(org.plan).voice) return `Voice is included from the Starter plan; this organisation is on ${org.plan[0]!.toUpperCase()}${org.plan.slice(1)}.`;
  if (!config.openai) return 'Voice needs a realtime provider: set OPENAI_API_KEY on the server.';
  return null;
}
