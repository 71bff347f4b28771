/**
 * Voice settings in GraphQL: `voiceSettings(kbId)` and `updateVoiceSettings`, over the same service
 * as REST and tRPC (src/services/voice/update-voice-settings.ts). In the input, an omitted field
 * stays as it is and an explicit null removes it (a KB then uses the organisation's value).
 */
import { getVoiceSettings, updateVoiceSettings, type UpdateVoiceSettingsInput, type VoiceSettingsDto } from '../src/services/voice/update-voice-settings';
import { VOICE_NAMES } from '../src/services/voice/voice-settings';
import { builder } from './builder';

const VoiceConfigurationRef = builder.objectRef<VoiceSettingsDto>('VoiceConfiguration').implement({
  description: 'The voice settings in effect for the organisation, or for one knowledge base (its overrides over the organisation’s)',
  fields: (t) => ({
    kbId: t.exposeID('kb_id', { nullable: true, description: 'The knowledge base; null for the organisation' }),
    turnDetection: t.exposeString('turn_detection', { description: 'server_vad (silence ends the turn) or semantic_vad' }),
    eagerness: t.exposeString('eagerness', { description: 'semantic_vad only: low, medium, high or auto' }),
    voice: t.exposeString('voice', { description: `One of ${VOICE_NAMES.join(', ')}` }),
    instructionsSuffix: t.exposeString('instructions_suffix', { description: "Appended to the gateway's instructions" }),
    overridden: t.exposeStringList('overridden', { description: 'Knowledge base only: the fields it sets itself (turn_detection, eagerness, voice, instructions_suffix)' }),
    voiceEnabled: t.exposeBoolean('voice_enabled'),
    voiceAvailable: t.exposeBoolean('voice_available'),
    voiceUnavailableReason: t.exposeString('voice_unavailable_reason', { nullable: true, description: 'Why voice is not available (e.g. the voice provider refused the server’s key); null when it is' }),
  }),
});

const UpdateVoiceSettingsInput = builder.inputType('UpdateVoiceSettingsInput', {
  fields: (t) => ({
    kbId: t.id({ description: 'Override for this knowledge base; omitted: the organisation’s settings' }),
    turnDetection: t.string({ description: 'null: remove (inherit)' }),
    eagerness: t.string({ description: 'null: remove (inherit)' }),
    voice: t.string({ description: 'null: remove (inherit)' }),
    instructionsSuffix: t.string({ description: 'null: remove (inherit)' }),
  }),
});

builder.queryFields((t) => ({
  voiceSettings: t.field({
    type: VoiceConfigurationRef,
    args: { kbId: t.arg.id({ description: 'A knowledge base; omitted: the organisation' }) },
    resolve: async (_root, { kbId }, ctx) => (await getVoiceSettings(await ctx.auth(), { kb_id: kbId == null ? null : String(kbId) })).voice_settings,
  }),
}));

builder.mutationFields((t) => ({
  updateVoiceSettings: t.field({
    type: VoiceConfigurationRef,
    args: { input: t.arg({ type: UpdateVoiceSettingsInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      // Omitted stays undefined (unchanged), an explicit null is passed on (remove): GraphQL keeps the difference.
      const pick = (key: keyof typeof input) => (key in input ? { value: input[key] } : null);
      const fields = { turn_detection: pick('turnDetection'), eagerness: pick('eagerness'), voice: pick('voice'), instructions_suffix: pick('instructionsSuffix') };
      const patch = Object.fromEntries(Object.entries(fields).flatMap(([k, v]) => (v ? [[k, v.value]] : [])));
      // Plain strings here; the service's zod schema is what validates them (the same errors as REST and tRPC).
      const raw = { ...patch, kb_id: input.kbId == null ? null : String(input.kbId) } as unknown as UpdateVoiceSettingsInput;
      return (await updateVoiceSettings(await ctx.auth(), raw)).voice_settings;
    },
  }),
}));
