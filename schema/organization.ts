import { PLAN_NAMES } from '../src/services/plans';
import { toOrgDto, type OrgDto } from '../src/services/orgs/org-dto';
import { getOrgSettings, updateOrgSettings, type OrgSettingsDto } from '../src/services/orgs/org-settings';
import { getOrgUsage, type OrgUsageDto } from '../src/services/voice/voice-usage';
import { VOICE_NAMES, type VoiceSettings } from '../src/services/voice/voice-settings';
import { builder } from './builder';

const PlanEnum = builder.enumType('Plan', { values: PLAN_NAMES });

const VoiceSettingsRef = builder.objectRef<VoiceSettings>('VoiceSettings').implement({
  description: 'Voice sessions: turn detection, voice and an instructions suffix (Workspace, Settings, Voice)',
  fields: (t) => ({
    turnDetection: t.exposeString('turn_detection', { description: 'server_vad (silence ends the turn) or semantic_vad' }),
    eagerness: t.exposeString('eagerness', { description: 'semantic_vad only: low, medium, high or auto' }),
    voice: t.exposeString('voice', { description: `One of ${VOICE_NAMES.join(', ')}` }),
    instructionsSuffix: t.exposeString('instructions_suffix', { description: "Appended to the gateway's instructions" }),
  }),
});

const VoiceSettingsInput = builder.inputType('VoiceSettingsInput', {
  fields: (t) => ({ turnDetection: t.string(), eagerness: t.string(), voice: t.string(), instructionsSuffix: t.string() }),
});

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
    voiceSettings: t.field({ type: VoiceSettingsRef, resolve: (s) => s.voice_settings }),
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
    voiceSettings: t.field({ type: VoiceSettingsInput, description: 'Only the fields given change' }),
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
          ...(input.voiceSettings != null
            ? {
                voice_settings: Object.fromEntries(
                  Object.entries({
                    turn_detection: input.voiceSettings.turnDetection,
                    eagerness: input.voiceSettings.eagerness,
                    voice: input.voiceSettings.voice,
                    instructions_suffix: input.voiceSettings.instructionsSuffix,
                  }).filter(([, value]) => value != null),
                ) as never,
              }
            : {}),
        })
      ).settings,
  }),
}));
