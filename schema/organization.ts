import { PLAN_NAMES } from '../src/services/plans';
import { toOrgDto, type OrgDto } from '../src/services/orgs/org-dto';
import { getOrgSettings, updateOrgSettings, type OrgSettingsDto } from '../src/services/orgs/org-settings';
import { getOrgUsage, type OrgUsageDto } from '../src/services/voice/voice-usage';
import { builder } from './builder';

const PlanEnum = builder.enumType('Plan', { values: PLAN_NAMES });

const OrganizationSettingsRef = builder.objectRef<OrgSettingsDto>('OrganizationSettings').implement({
  description: 'Settings of the embeddable widget and voice',
  fields: (t) => ({
    voiceEnabled: t.exposeBoolean('voice_enabled', { description: 'Voice switched on (Workspace, Settings, Voice)' }),
    voiceAvailable: t.exposeBoolean('voice_available', {
      description: 'Voice switched on, included in the plan (Starter and above) and a realtime provider configured on the server',
    }),
    voiceUnavailableReason: t.string({
      nullable: true,
      description: 'Why voice is not available (null when it is)',
      resolve: (s) => s.voice_unavailable_reason,
    }),
    voiceBlockedReason: t.exposeString('voice_blocked_reason', {
      nullable: true,
      description: 'Why voice cannot be switched on (plan below Starter, or no realtime provider on this server); null when it can',
    }),
    allowedOrigins: t.exposeStringList('allowed_origins', {
      description: 'Origins (scheme://host[:port]) allowed to embed the widget; empty allows every origin',
    }),
  }),
});

const OrganizationUsageRef = builder.objectRef<OrgUsageDto>('OrganizationUsage').implement({
  description: "Metered usage of the caller's organisation",
  fields: (t) => ({
    voiceSeconds: t.exposeFloat('voice_seconds', { description: 'Length of all ended voice sessions, in seconds' }),
    voiceSessions: t.exposeInt('voice_sessions', { description: 'Voice sessions ended' }),
    voiceInputTokens: t.exposeFloat('voice_input_tokens', { description: 'Realtime input tokens of ended voice sessions' }),
    voiceOutputTokens: t.exposeFloat('voice_output_tokens', { description: 'Realtime output tokens of ended voice sessions' }),
  }),
});

const OrganizationRef = builder.objectRef<OrgDto>('Organization').implement({
  description: "The caller's organisation",
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug', { description: 'Used as data-org in the widget script tag' }),
    name: t.exposeString('name'),
    plan: t.field({ type: PlanEnum, resolve: (o) => o.plan }),
    settings: t.field({ type: OrganizationSettingsRef, resolve: async (_o, _a, ctx) => (await getOrgSettings(await ctx.auth())).settings }),
    usage: t.field({ type: OrganizationUsageRef, resolve: async (_o, _a, ctx) => (await getOrgUsage(await ctx.auth())).usage }),
  }),
});

const UpdateOrganizationSettingsInput = builder.inputType('UpdateOrganizationSettingsInput', {
  fields: (t) => ({
    voiceEnabled: t.boolean(),
    allowedOrigins: t.stringList({ description: 'Replaces the whole list; [] allows every origin' }),
  }),
});

builder.queryFields((t) => ({
  organization: t.field({
    type: OrganizationRef,
    resolve: async (_root, _args, ctx) => toOrgDto((await ctx.auth()).org),
  }),
}));

builder.mutationFields((t) => ({
  updateOrganizationSettings: t.field({
    type: OrganizationSettingsRef,
    args: { input: t.arg({ type: UpdateOrganizationSettingsInput, required: true }) },
    resolve: async (_root, { input }, ctx) =>
      (
        await updateOrgSettings(await ctx.auth(), {
          ...(input.voiceEnabled != null ? { voice_enabled: input.voiceEnabled } : {}),
          ...(input.allowedOrigins != null ? { allowed_origins: input.allowedOrigins } : {}),
        })
      ).settings,
  }),
}));
