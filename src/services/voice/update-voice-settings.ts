/**
 * Voice settings (Workspace -> Settings -> Voice), of the organisation or overridden per knowledge
 * base: the one pair of service functions REST (/api/settings/voice, /api/kbs/:id/voice-settings),
 * GraphQL (voiceSettings, updateVoiceSettings) and tRPC (voice.settings, voice.updateSettings) call.
 *
 * Guarantees: every value is validated by the one zod schema (voice-settings.ts); a KB stores only
 * the fields it overrides, so a later change of the organisation's settings reaches every field it
 * does not; null removes a stored field (a KB's then inherits the organisation's, the
 * organisation's goes back to the default); another organisation's KB is "not found". The reply
 * also says whether voice is available and, if not, why (e.g. the upstream refused the key), since
 * that is what the settings page shows next to the form.
 */
import { z } from 'zod';
import type { KnowledgeBase, Organization } from '../../../db/types';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { lockOrg } from '../orgs/lock-org';
import { toOrgSettingsDto } from '../orgs/org-settings';
import { providerRefusalReason } from './voice-provider-status';
import { mergeVoiceSettings, resolveVoiceSettings, storedVoiceSettings, ZVoiceSettings, ZVoiceSettingsPatch, type VoiceSettings } from './voice-settings';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

const VOICE_SETTING_FIELDS = Object.keys(ZVoiceSettings.shape) as [keyof VoiceSettings, ...(keyof VoiceSettings)[]];

/** What the settings page shows; also the REST response schema. */
export const ZVoiceSettingsDto = ZVoiceSettings.extend({
  /** The KB these settings are for; null: the organisation's. */
  kb_id: z.string().nullable(),
  /** KB only: the fields it sets itself (the others are the organisation's). [] for the organisation. */
  overridden: z.array(z.enum(VOICE_SETTING_FIELDS)),
  voice_enabled: z.boolean(),
  voice_available: z.boolean(),
  /** Why voice is not available (plan, switched off, no provider, the provider refused the key); null when it is. */
  voice_unavailable_reason: z.string().nullable(),
});
export type VoiceSettingsDto = z.infer<typeof ZVoiceSettingsDto>;

export const ZVoiceSettingsRef = z.object({ kb_id: z.string().min(1).nullish() }).strict();
export const ZUpdateVoiceSettingsInput = ZVoiceSettingsPatch.extend({ kb_id: z.string().min(1).nullish() }).strict();
export type UpdateVoiceSettingsInput = z.input<typeof ZUpdateVoiceSettingsInput>;

async function toDto(ctx: ServiceContext, org: Pick<Organization, 'plan' | 'settings'>, kb: Pick<KnowledgeBase, 'id' | 'voice_settings'> | null): Promise<VoiceSettingsDto> {
  const orgDto = toOrgSettingsDto(org, ctx.config, await providerRefusalReason(ctx));
  return {
    ...resolveVoiceSettings(org.settings?.voice_settings, kb?.voice_settings),
    kb_id: kb?.id ?? null,
    overridden: kb ? (Object.keys(storedVoiceSettings(kb.voice_settings)) as (keyof VoiceSettings)[]) : [],
    voice_enabled: orgDto.voice_enabled,
    voice_available: orgDto.voice_available,
    voice_unavailable_reason: orgDto.voice_unavailable_reason,
  };
}

export async function getVoiceSettings(ctx: ServiceContext, rawInput: z.input<typeof ZVoiceSettingsRef> = {}): Promise<{ voice_settings: VoiceSettingsDto }> {
  authorize(ctx, 'content.read');
  const input = parseInput(ZVoiceSettingsRef, rawInput);
  const kb = input.kb_id ? await requireKb(ctx, input.kb_id) : null;
  // Re-read: ctx.org was loaded when the request was authenticated and may predate an update.
  const org = await ctx.db.selectFrom('organizations').select(['plan', 'settings']).where('id', '=', ctx.org.id).executeTakeFirstOrThrow();
  return { voice_settings: await toDto(ctx, org, kb) };
}

export async function updateVoiceSettings(ctx: ServiceContext, rawInput: UpdateVoiceSettingsInput): Promise<{ voice_settings: VoiceSettingsDto }> {
  authorize(ctx, 'settings.update');
  const { kb_id, ...patch } = parseInput(ZUpdateVoiceSettingsInput, rawInput);
  if (kb_id) {
    const kb = await requireKb(ctx, kb_id);
    const stored = await ctx.db.transaction().execute(async (trx) => {
      // Read-modify-write of the KB's document: the row lock keeps concurrent changes from losing fields.
      const row = await trx.selectFrom('knowledge_bases').select('voice_settings').where('id', '=', kb.id).where('org_id', '=', ctx.org.id).forUpdate().executeTakeFirstOrThrow();
      const next = mergeVoiceSettings(row.voice_settings, patch);
      const value = Object.keys(next).length > 0 ? next : null;
      await trx
        .updateTable('knowledge_bases')
        .set({ voice_settings: value === null ? null : JSON.stringify(value), updated_at: new Date() })
        .where('id', '=', kb.id)
        .where('org_id', '=', ctx.org.id)
        .execute();
      await recordAudit({ ...ctx, db: trx }, { action: 'voice_settings.update', targetType: 'knowledge_base', targetId: kb.id, changes: { before: row.voice_settings, after: value } });
      return value;
    });
    ctx.logger.info({ kbId: kb.id, voiceSettings: stored }, 'knowledge base voice settings updated');
    return getVoiceSettings(ctx, { kb_id: kb.id });
  }
  const org = await ctx.db.transaction().execute(async (trx) => {
    // Read-modify-write of one jsonb document: the row lock keeps concurrent updates from losing fields.
    const locked = await lockOrg(trx, ctx.org.id);
    const settings = { ...(locked.settings ?? {}), voice_settings: mergeVoiceSettings(locked.settings?.voice_settings, patch) };
    await trx.updateTable('organizations').set({ settings: JSON.stringify(settings) }).where('id', '=', locked.id).execute();
    await recordAudit({ ...ctx, db: trx }, { action: 'voice_settings.update', targetType: 'organization', targetId: locked.id, changes: { before: locked.settings?.voice_settings ?? null, after: settings.voice_settings } });
    return { plan: locked.plan, settings };
  });
  ctx.logger.info({ voiceSettings: org.settings.voice_settings }, 'organisation voice settings updated');
  return { voice_settings: await toDto(ctx, org, null) };
}
