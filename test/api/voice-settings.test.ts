/**
 * Voice settings (issue 24): the organisation's and a knowledge base's override, through the one
 * service and then through REST, GraphQL and tRPC, which must return the same data and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context';
import { createKb } from '../../src/services/kbs/create-kb';
import { getVoiceSettings, updateVoiceSettings } from '../../src/services/voice/update-voice-settings';
import { recordProviderRefusal } from '../../src/services/voice/voice-provider-status';
import { updateOrgSettings } from '../../src/services/orgs/org-settings';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  // A realtime provider configured, so availability depends on plan, setting and the provider's answer.
  t = await createTestApp({ env: { OPENAI_REALTIME_API_KEY: 'sk-voice-settings-test' } });
});
afterAll(() => t?.close());

const DEFAULTS = { turn_detection: 'server_vad', eagerness: 'auto', voice: 'marin', instructions_suffix: '' };

async function orgCtx(plan: 'free' | 'starter' | 'pro' = 'pro') {
  const created = await createOrgWithKey(t.deps, { plan });
  const org = await t.deps.db.selectFrom('organizations').selectAll().where('id', '=', created.org.id).executeTakeFirstOrThrow();
  const ctx = createContext(t.deps, org, { requestId: 'test' });
  const { kb } = await createKb(ctx, { name: 'Voice KB' });
  return { ctx, kb, apiKey: created.api_key };
}

describe('voice settings service', () => {
  it('has defaults that work, for the organisation and for a KB without an override', async () => {
    const { ctx, kb } = await orgCtx();
    const org = (await getVoiceSettings(ctx)).voice_settings;
    expect(org).toEqual({ ...DEFAULTS, kb_id: null, overridden: [], voice_enabled: false, voice_available: false, voice_unavailable_reason: 'Voice is switched off in the organisation settings' });
    expect((await getVoiceSettings(ctx, { kb_id: kb.id })).voice_settings).toEqual({ ...org, kb_id: kb.id });
  });

  it('a KB overrides only the fields it sets; later organisation changes reach the rest; null inherits again', async () => {
    const { ctx, kb } = await orgCtx();
    await updateVoiceSettings(ctx, { voice: 'cedar', instructions_suffix: 'Be brief.' });
    const over = (await updateVoiceSettings(ctx, { kb_id: kb.id, turn_detection: 'semantic_vad', eagerness: 'high', instructions_suffix: '' })).voice_settings;
    expect(over).toMatchObject({ turn_detection: 'semantic_vad', eagerness: 'high', voice: 'cedar', instructions_suffix: '', overridden: ['turn_detection', 'eagerness', 'instructions_suffix'] });
    await updateVoiceSettings(ctx, { voice: 'sage' });
    expect((await getVoiceSettings(ctx, { kb_id: kb.id })).voice_settings.voice).toBe('sage');
    // The organisation's own settings are not touched by the KB's.
    expect((await getVoiceSettings(ctx)).voice_settings).toMatchObject({ turn_detection: 'server_vad', voice: 'sage', instructions_suffix: 'Be brief.' });
    const back = (await updateVoiceSettings(ctx, { kb_id: kb.id, turn_detection: null, eagerness: null, instructions_suffix: null })).voice_settings;
    expect(back).toMatchObject({ turn_detection: 'server_vad', eagerness: 'auto', voice: 'sage', instructions_suffix: 'Be brief.', overridden: [] });
    const row = await t.deps.db.selectFrom('knowledge_bases').select('voice_settings').where('id', '=', kb.id as never).executeTakeFirstOrThrow();
    expect(row.voice_settings).toBeNull();
    // null on the organisation goes back to the default.
    expect((await updateVoiceSettings(ctx, { voice: null })).voice_settings.voice).toBe('marin');
  });

  it('concurrent changes of different fields of one KB all stay (the row is locked while merged)', async () => {
    const { ctx, kb } = await orgCtx();
    const changes = [{ turn_detection: 'semantic_vad' }, { eagerness: 'low' }, { voice: 'echo' }, { instructions_suffix: 'Short.' }] as const;
    for (let round = 0; round < 3; round++) {
      await updateVoiceSettings(ctx, { kb_id: kb.id, turn_detection: null, eagerness: null, voice: null, instructions_suffix: null });
      await Promise.all(changes.map((c) => updateVoiceSettings(ctx, { kb_id: kb.id, ...c })));
      expect((await getVoiceSettings(ctx, { kb_id: kb.id })).voice_settings).toMatchObject({ turn_detection: 'semantic_vad', eagerness: 'low', voice: 'echo', instructions_suffix: 'Short.' });
    }
  });

  it('the older org.updateSettings voice_settings field writes the same stored settings', async () => {
    const { ctx, kb } = await orgCtx();
    await updateOrgSettings(ctx, { voice_settings: { voice: 'verse' } });
    expect((await getVoiceSettings(ctx, { kb_id: kb.id })).voice_settings.voice).toBe('verse');
  });

  it('refuses bad values naming the field, and keeps what was stored', async () => {
    const { ctx, kb } = await orgCtx();
    await expect(updateVoiceSettings(ctx, { voice: 'nova' as never })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'voice' } });
    await expect(updateVoiceSettings(ctx, { kb_id: kb.id, instructions_suffix: 'x'.repeat(1001) })).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'instructions_suffix' } });
    await expect(updateVoiceSettings(ctx, { temperature: 0.5 } as never)).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'temperature' } });
    expect((await getVoiceSettings(ctx, { kb_id: kb.id })).voice_settings).toMatchObject({ ...DEFAULTS, overridden: [] });
  });

  it("another organisation's KB is not found, and a stale stored value falls back alone", async () => {
    const a = await orgCtx();
    const b = await orgCtx();
    await expect(getVoiceSettings(b.ctx, { kb_id: a.kb.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(updateVoiceSettings(b.ctx, { kb_id: a.kb.id, voice: 'ash' })).rejects.toMatchObject({ code: 'not_found' });
    await t.deps.db.updateTable('knowledge_bases').set({ voice_settings: JSON.stringify({ voice: 'retired-voice', eagerness: 'low' }) }).where('id', '=', a.kb.id as never).execute();
    expect((await getVoiceSettings(a.ctx, { kb_id: a.kb.id })).voice_settings).toMatchObject({ voice: 'marin', eagerness: 'low', overridden: ['eagerness'] });
  });

  it('says why voice is unavailable after the provider refused the key (admin-visible reason)', async () => {
    const { ctx } = await orgCtx();
    await updateOrgSettings(ctx, { voice_enabled: true });
    expect((await getVoiceSettings(ctx)).voice_settings).toMatchObject({ voice_enabled: true, voice_available: true, voice_unavailable_reason: null });
    await recordProviderRefusal(t.deps, { status: 401, code: 'invalid_api_key', message: 'Incorrect API key provided' });
    const after = (await getVoiceSettings(ctx)).voice_settings;
    expect(after.voice_available).toBe(false);
    expect(after.voice_unavailable_reason).toMatch(/401|key/i);
    await t.deps.db.deleteFrom('voice_provider_refusals').execute();
  });
});

// ---- the three transports -----------------------------------------------------------------

type Outcome = { ok: unknown } | { error: string; field?: string | null };
type Transport = { get(kbId?: string): Promise<Outcome>; update(input: Record<string, unknown>, kbId?: string): Promise<Outcome> };
const snake = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
const camel = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), v]));
const FIELDS = 'kbId turnDetection eagerness voice instructionsSuffix overridden voiceEnabled voiceAvailable voiceUnavailableReason';

function rest(apiKey: string): Transport {
  const api = restClient(t.app, apiKey);
  const out = (r: { status: number; body: any }): Outcome => (r.status < 300 ? { ok: r.body.voice_settings } : { error: r.body.error.code, field: r.body.error.field ?? null });
  return {
    get: async (kbId) => out(await api.get(kbId ? `/api/kbs/${kbId}/voice-settings` : '/api/settings/voice')),
    update: async (input, kbId) => out(await api.patch(kbId ? `/api/kbs/${kbId}/voice-settings` : '/api/settings/voice', input)),
  };
}
function graphql(apiKey: string): Transport {
  const gql = graphqlClient(t.app, apiKey);
  const out = (r: { body: any }, key: string): Outcome => {
    const err = r.body.errors?.[0];
    return err ? { error: err.extensions?.app_code, field: err.extensions?.field ?? null } : { ok: snake(r.body.data[key]) };
  };
  return {
    get: async (kbId) => out(await gql(`query($kbId: ID) { voiceSettings(kbId: $kbId) { ${FIELDS} } }`, { kbId: kbId ?? null }), 'voiceSettings'),
    update: async (input, kbId) =>
      out(await gql(`mutation($input: UpdateVoiceSettingsInput!) { updateVoiceSettings(input: $input) { ${FIELDS} } }`, { input: { ...camel(input), ...(kbId ? { kbId } : {}) } }), 'updateVoiceSettings'),
  };
}
function trpc(apiKey: string): Transport {
  const c = trpcClient(t.app, apiKey);
  const out = (r: { body: any }): Outcome => (r.body.error ? { error: r.body.error.data.app_code, field: r.body.error.data.field ?? null } : { ok: r.body.result.data.voice_settings });
  return {
    get: async (kbId) => out(await c.query('voice.settings', kbId ? { kb_id: kbId } : undefined)),
    update: async (input, kbId) => out(await c.mutation('voice.updateSettings', { ...input, ...(kbId ? { kb_id: kbId } : {}) })),
  };
}

describe('voice settings through REST, GraphQL and tRPC', () => {
  it('the same operations give the same results and the same errors on every transport', async () => {
    const runs: Outcome[][] = [];
    const other = await orgCtx();
    for (const make of [rest, graphql, trpc]) {
      const { kb, apiKey } = await orgCtx();
      const api = make(apiKey);
      const outcomes = [
        await api.get(),
        await api.update({ turn_detection: 'semantic_vad', eagerness: 'low', voice: 'coral', instructions_suffix: 'Answer in French.' }),
        await api.update({ voice: 'ash' }, kb.id),
        await api.get(kb.id),
        await api.update({ voice: null }, kb.id),
        await api.update({ voice: 'nova' }),
        await api.update({ instructions_suffix: 'x'.repeat(1001) }, kb.id),
        await api.update({ eagerness: 'extreme' }, kb.id),
        await api.get(other.kb.id),
        await api.update({ voice: 'ash' }, other.kb.id),
      ];
      // Ids differ per run: mask the KB's own.
      runs.push(JSON.parse(JSON.stringify(outcomes).replaceAll(kb.id, 'kb_X')));
    }
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]).toEqual(runs[2]);
    const [first, orgUpdated, kbUpdated, kbRead, kbCleared, badVoice, longSuffix, badEagerness, foreignRead, foreignUpdate] = runs[0]!;
    expect(first).toEqual({ ok: expect.objectContaining({ ...DEFAULTS, kb_id: null }) });
    expect(orgUpdated).toEqual({ ok: expect.objectContaining({ turn_detection: 'semantic_vad', eagerness: 'low', voice: 'coral', instructions_suffix: 'Answer in French.' }) });
    expect(kbUpdated).toEqual({ ok: expect.objectContaining({ kb_id: 'kb_X', voice: 'ash', turn_detection: 'semantic_vad', overridden: ['voice'] }) });
    expect(kbRead).toEqual(kbUpdated);
    expect(kbCleared).toEqual({ ok: expect.objectContaining({ voice: 'coral', overridden: [] }) });
    expect(badVoice).toEqual({ error: 'invalid_input', field: 'voice' });
    expect(longSuffix).toEqual({ error: 'invalid_input', field: 'instructions_suffix' });
    expect(badEagerness).toEqual({ error: 'invalid_input', field: 'eagerness' });
    expect(foreignRead).toEqual({ error: 'not_found', field: null });
    expect(foreignUpdate).toEqual({ error: 'not_found', field: null });
  });

  it('REST answers bad JSON bodies with a JSON 400 and needs a key', async () => {
    const { apiKey } = await orgCtx();
    const res = await restClient(t.app, apiKey).raw('/api/settings/voice', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"voice":' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('invalid_input');
    const anonymous = await restClient(t.app).get('/api/settings/voice');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('unauthorized');
  });
});
