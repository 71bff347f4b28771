/**
 * Organisation settings for the widget (allowed origins, voice) through GraphQL and tRPC: the same
 * service, the same validation and errors, scoped to the caller's organisation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  // A realtime provider configured, so voice availability depends on plan and setting only.
  t = await createTestApp({ env: { OPENAI_REALTIME_API_KEY: 'sk-test' } });
});
afterAll(() => t?.close());

const SETTINGS = 'voiceEnabled voiceAvailable voiceUnavailableReason allowedOrigins';
const UPDATE = `mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { ${SETTINGS} } }`;

describe('organization settings', () => {
  it('reads the organisation with default settings (GraphQL) and the same settings through tRPC', async () => {
    const { org, api_key } = await createOrgWithKey(t.deps, { plan: 'starter' });
    const res = await graphqlClient(t.app, api_key)(`{ organization { id slug name plan settings { ${SETTINGS} } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.organization).toEqual({
      id: org.id,
      slug: org.slug,
      name: org.name,
      plan: 'starter',
      settings: { voiceEnabled: false, voiceAvailable: false, voiceUnavailableReason: 'Voice is switched off in the organisation settings', allowedOrigins: [] },
    });
    const trpc = await trpcClient(t.app, api_key).query('org.settings');
    expect((trpc.body as any).result.data).toEqual({
      settings: { voice_enabled: false, voice_available: false, voice_unavailable_reason: 'Voice is switched off in the organisation settings', voice_blocked_reason: null, allowed_origins: [], voice_settings: { turn_detection: 'server_vad', eagerness: 'auto', voice: 'marin', instructions_suffix: '' } },
    });
  });

  it('normalises and de-duplicates allowed origins, and partial updates keep the other fields', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const gql = graphqlClient(t.app, api_key);
    const set = await gql(UPDATE, {
      input: { voiceEnabled: true, allowedOrigins: ['HTTPS://Shop.Example.com:443/', 'http://localhost:3000', 'https://shop.example.com', 'http://[::1]:8080'] },
    });
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.updateOrganizationSettings).toEqual({
      voiceEnabled: true,
      voiceAvailable: true,
      voiceUnavailableReason: null,
      allowedOrigins: ['https://shop.example.com', 'http://localhost:3000', 'http://[::1]:8080'],
    });
    const partial = await trpcClient(t.app, api_key).mutation('org.updateSettings', { voice_enabled: false });
    expect((partial.body as any).result.data.settings).toEqual({
      voice_enabled: false,
      voice_available: false,
      voice_unavailable_reason: 'Voice is switched off in the organisation settings',
      voice_blocked_reason: null,
      allowed_origins: ['https://shop.example.com', 'http://localhost:3000', 'http://[::1]:8080'],
      voice_settings: { turn_detection: 'server_vad', eagerness: 'auto', voice: 'marin', instructions_suffix: '' },
    });
    const cleared = await gql(UPDATE, { input: { allowedOrigins: [] } });
    expect(cleared.body.data.updateOrganizationSettings.allowedOrigins).toEqual([]);
  });

  it('refuses anything that is not exactly an http(s) origin, naming the entry, in GraphQL and tRPC alike', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const gql = graphqlClient(t.app, api_key);
    const trpc = trpcClient(t.app, api_key);
    const bad = ['shop.example.com', 'https://shop.example.com/path', 'ftp://shop.example.com', 'https://*.example.com', 'https://shop.example.com?x=1', 'https://user@shop.example.com', 'null', ''];
    for (const origin of bad) {
      const g = await gql(UPDATE, { input: { allowedOrigins: ['https://ok.example.com', origin] } });
      expect(g.body.errors?.[0]?.extensions, origin).toMatchObject({ app_code: 'invalid_input', field: 'allowed_origins.1' });
      const r = await trpc.mutation('org.updateSettings', { allowed_origins: ['https://ok.example.com', origin] });
      expect((r.body as any).error.data, origin).toMatchObject({ app_code: 'invalid_input', field: 'allowed_origins.1' });
    }
    const tooMany = Array.from({ length: 51 }, (_, i) => `https://site${i}.example.com`);
    const capped = await trpc.mutation('org.updateSettings', { allowed_origins: tooMany });
    expect(capped.body.error.data).toMatchObject({ app_code: 'invalid_input', field: 'allowed_origins' });
    expect((await trpc.query('org.settings')).body.result.data.settings.allowed_origins).toEqual([]);
  });

  it('switches voice on only where the plan includes it', async () => {
    const free = await createOrgWithKey(t.deps, { plan: 'free' });
    const g = await graphqlClient(t.app, free.api_key)(UPDATE, { input: { voiceEnabled: true } });
    expect(g.body.errors?.[0]?.extensions).toMatchObject({ app_code: 'plan_limit_exceeded', field: 'voice_enabled' });
    expect(g.body.errors?.[0]?.message).toMatch(/Starter plan or above/);
    const r = await trpcClient(t.app, free.api_key).mutation('org.updateSettings', { voice_enabled: true });
    expect(r.body.error.data).toMatchObject({ app_code: 'plan_limit_exceeded', httpStatus: 403 });

    const starter = await createOrgWithKey(t.deps, { plan: 'starter' });
    const ok = await graphqlClient(t.app, starter.api_key)(UPDATE, { input: { voiceEnabled: true } });
    expect(ok.body.data.updateOrganizationSettings).toMatchObject({ voiceEnabled: true, voiceAvailable: true, voiceUnavailableReason: null });
  });

  it('says why voice is unavailable: plan, setting, or no realtime provider on the server', async () => {
    const free = await createOrgWithKey(t.deps, { plan: 'free' });
    expect((await trpcClient(t.app, free.api_key).query('org.settings')).body.result.data.settings).toMatchObject({
      voice_available: false,
      voice_unavailable_reason: expect.stringMatching(/Starter plan or above/),
    });
    const noProvider = await createTestApp();
    try {
      const { api_key } = await createOrgWithKey(noProvider.deps, { plan: 'pro' });
      const on = await graphqlClient(noProvider.app, api_key)(UPDATE, { input: { voiceEnabled: true } });
      expect(on.body.data.updateOrganizationSettings).toMatchObject({
        voiceEnabled: true,
        voiceAvailable: false,
        voiceUnavailableReason: expect.stringMatching(/No realtime voice provider.*OPENAI_API_KEY/),
      });
      expect((await trpcClient(noProvider.app, api_key).query('org.settings')).body.result.data.settings).toMatchObject({
        voice_available: false,
        voice_unavailable_reason: expect.stringMatching(/No realtime voice provider/),
      });
    } finally {
      await noProvider.close();
    }
  });

  it('changes only the caller’s organisation and needs an API key', async () => {
    const a = await createOrgWithKey(t.deps);
    const b = await createOrgWithKey(t.deps);
    await trpcClient(t.app, a.api_key).mutation('org.updateSettings', { allowed_origins: ['https://a.example.com'] });
    expect((await trpcClient(t.app, b.api_key).query('org.settings')).body.result.data.settings.allowed_origins).toEqual([]);
    const anonymous = await graphqlClient(t.app)(UPDATE, { input: { allowedOrigins: [] } });
    expect(anonymous.body.errors?.[0]?.extensions?.app_code).toBe('unauthorized');
    expect((await trpcClient(t.app).query('org.settings')).body.error.data.app_code).toBe('unauthorized');
  });
});
