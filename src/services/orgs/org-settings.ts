/**
 * Organisation settings the widget depends on: which websites may embed it (allowed origins) and
 * whether voice is switched on. Origins are stored normalised (`scheme://host[:port]`, lower case,
 * default port dropped) so the widget endpoints compare them with a plain string match. Voice can
 * only be switched on when the plan includes it; whether it is *available* is always recomputed
 * from plan AND setting, so a later downgrade switches it off without touching the setting.
 */
import { z } from 'zod';
import type { Organization, OrgSettings } from '../../../db/types';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { parseInput } from '../../validation';
import { lockOrg } from './lock-org';
import { planLimits } from '../plans';
import { voiceAvailability, voiceBlockedReason } from '../voice/voice-availability';
import { providerRefusalReason } from '../voice/voice-provider-status';
import { mergeVoiceSettings, resolveVoiceSettings, ZVoiceSettingsUpdate, type VoiceSettings } from '../voice/voice-settings';
import type { Config } from '../../config';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const MAX_ALLOWED_ORIGINS = 50;

export type OrgSettingsDto = {
  voice_enabled: boolean;
  /** Plan includes voice AND voice_enabled AND a realtime provider is configured: what the widget is told. */
  voice_available: boolean;
  /** Why voice is not available (null when it is). */
  voice_unavailable_reason: string | null;
  /** Why voice cannot be switched on (plan or server; the setting itself is not a reason), null when it can. */
  voice_blocked_reason: string | null;
  /** Empty means every origin may embed the widget. */
  allowed_origins: string[];
  /** Turn detection, voice and instructions suffix of voice sessions (defaults filled in). */
  voice_settings: VoiceSettings;
};

/**
 * `https://Example.com:443/` -> `https://example.com`. Null for anything that is not exactly an
 * http(s) origin: a path, query, fragment, credentials or wildcard is refused rather than guessed at.
 */
export function normalizeOrigin(input: string): string | null {
  const raw = input.trim();
  if (raw.length === 0 || raw.length > 255 || raw.includes('*')) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return null;
  // new URL() accepts "https://a.com?" and "https://a.com#" with empty search/hash; refuse those too.
  if (/[?#]/.test(raw) || !/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(raw)) return null;
  return url.origin;
}

const ZOrigin = z.string().transform((value, ctx) => {
  const origin = normalizeOrigin(value);
  if (!origin) {
    ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 100)}" is not an origin: use scheme://host[:port], e.g. https://www.example.com` });
    return z.NEVER;
  }
  return origin;
});

export const ZUpdateOrgSettingsInput = z
  .object({
    voice_enabled: z.boolean().optional(),
    allowed_origins: z.array(ZOrigin).max(MAX_ALLOWED_ORIGINS, `at most ${MAX_ALLOWED_ORIGINS} origins`).optional(),
    /** Only the fields given change. */
    voice_settings: ZVoiceSettingsUpdate.optional(),
  })
  .strict();
export type UpdateOrgSettingsInput = z.input<typeof ZUpdateOrgSettingsInput>;

export function toOrgSettingsDto(org: Pick<Organization, 'plan' | 'settings'>, config: Pick<Config, 'realtime'>, providerRefusal: string | null = null): OrgSettingsDto {
  const settings: OrgSettings = org.settings ?? {};
  const voice = voiceAvailability(org, config, providerRefusal);
  return {
    voice_enabled: settings.voice_enabled === true,
    voice_available: voice.available,
    voice_unavailable_reason: voice.reason,
    voice_blocked_reason: voiceBlockedReason(org, config, providerRefusal),
    allowed_origins: settings.allowed_origins ?? [],
    voice_settings: resolveVoiceSettings(settings.voice_settings),
  };
}

/** Empty list: any origin. A request without a usable Origin never matches a non-empty list. */
export function isOriginAllowed(settings: OrgSettings, origin: string): boolean {
  const allowed = settings.allowed_origins ?? [];
  return allowed.length === 0 || allowed.includes(origin);
}

export async function getOrgSettings(ctx: ServiceContext): Promise<{ settings: OrgSettingsDto }> {
  authorize(ctx, 'content.read');
  // Re-read: ctx.org was loaded when the request was authenticated and may predate an update.
  const org = await ctx.db.selectFrom('organizations').select(['plan', 'settings']).where('id', '=', ctx.org.id).executeTakeFirstOrThrow();
  return { settings: toOrgSettingsDto(org, ctx.config, await providerRefusalReason(ctx)) };
}

export async function updateOrgSettings(ctx: ServiceContext, rawInput: UpdateOrgSettingsInput): Promise<{ settings: OrgSettingsDto }> {
  authorize(ctx, 'settings.update');
  const input = parseInput(ZUpdateOrgSettingsInput, rawInput);
  const providerRefusal = await providerRefusalReason(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    // Read-modify-write of one jsonb document: the row lock keeps concurrent updates from losing fields.
    const org = await lockOrg(trx, ctx.org.id);
    if (input.voice_enabled === true && !planLimits(org.plan).voice) {
      throw new AppError('plan_limit_exceeded', `Voice is not included in the ${org.plan} plan; it needs the Starter plan or above`, {
        field: 'voice_enabled',
        plan: org.plan,
      });
    }
    const next: OrgSettings = { ...(org.settings ?? {}) };
    if (input.voice_enabled !== undefined) next.voice_enabled = input.voice_enabled;
    if (input.allowed_origins !== undefined) next.allowed_origins = [...new Set(input.allowed_origins)];
    if (input.voice_settings !== undefined) next.voice_settings = mergeVoiceSettings(next.voice_settings, input.voice_settings);
    await trx.updateTable('organizations').set({ settings: JSON.stringify(next) }).where('id', '=', org.id).execute();
    await recordAudit({ ...ctx, db: trx }, { action: 'settings.update', targetType: 'organization', targetId: org.id, changes: { before: org.settings ?? {}, after: next } });
    ctx.logger.info({ settings: next }, 'organisation settings updated');
    return { settings: toOrgSettingsDto({ plan: org.plan, settings: next }, ctx.config, providerRefusal) };
  });
}
