/**
 * Every refusal of the protocol table at the upgrade: the upgrade succeeds (a browser could not read
 * an HTTP error), then one `error` message with the code and the visitor's message, then the close
 * code with the code as reason. Nothing reaches the upstream for a refused connection.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KbId } from '../../src/ids';
import { serveAppWithVoice, createVoiceOrg, createVoiceTestApp, until, VoiceClient, widgetToken } from './voice-fixture';
import type { WidgetOrg } from '../widget/widget-fixture';

let v: Awaited<ReturnType<typeof createVoiceTestApp>>;
let starter: WidgetOrg;

beforeAll(async () => {
  v = await createVoiceTestApp();
  starter = await createVoiceOrg(v.t);
});
afterAll(() => v?.close());

async function refusal(client: VoiceClient) {
  const [error, closed] = await Promise.all([client.type('error'), client.closed]);
  return { code: error.code, message: error.message as string, close: closed.code, reason: closed.reason };
}

describe('voice gateway refusals', () => {
  it('free plan: voice_not_in_plan, 4403', async () => {
    const free = await createVoiceOrg(v.t, { plan: 'free' });
    const before = v.fake.sessions.length;
    const r = await refusal(VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, free)));
    expect(r).toEqual({ code: 'voice_not_in_plan', message: expect.stringMatching(/Starter plan or above/), close: 4403, reason: 'voice_not_in_plan' });
    expect(v.fake.sessions.length).toBe(before);
  });

  it('voice switched off: voice_disabled, 4403', async () => {
    const off = await createVoiceOrg(v.t, { voice: false });
    const r = await refusal(VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, off)));
    expect(r).toEqual({ code: 'voice_disabled', message: expect.stringMatching(/switched off/), close: 4403, reason: 'voice_disabled' });
  });

  it("KB's widget switched off after the token was issued: widget_disabled, 4403", async () => {
    const org = await createVoiceOrg(v.t);
    const token = await widgetToken(v.t, org);
    await v.t.db.updateTable('knowledge_bases').set({ widget_enabled: false }).where('id', '=', org.kbId as KbId).execute();
    const r = await refusal(VoiceClient.connect(v.served.wsUrl, token));
    expect(r).toEqual({ code: 'widget_disabled', message: expect.stringMatching(/turned off/), close: 4403, reason: 'widget_disabled' });
  });

  it('another website using the token: origin_not_allowed, 4403; no Origin at all too', async () => {
    const token = await widgetToken(v.t, starter);
    const wrong = await refusal(VoiceClient.connect(v.served.wsUrl, token, { origin: 'https://evil.example' }));
    expect(wrong).toEqual({ code: 'origin_not_allowed', message: expect.stringMatching(/another website/), close: 4403, reason: 'origin_not_allowed' });
    const none = await refusal(VoiceClient.connect(v.served.wsUrl, token, { origin: null }));
    expect(none).toMatchObject({ code: 'origin_not_allowed', close: 4403 });
  });

  it('forged, tampered, expired-looking or missing token: invalid_token, 4401', async () => {
    const token = await widgetToken(v.t, starter);
    const [payload, sig] = token.split('.') as [string, string];
    const forged = `${payload}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const t of [forged, 'not-a-token', `${Buffer.from('{"v":1}').toString('base64url')}.${sig}`]) {
      expect(await refusal(VoiceClient.connect(v.served.wsUrl, t))).toEqual({
        code: 'invalid_token',
        message: expect.stringMatching(/invalid or has expired/),
        close: 4401,
        reason: 'invalid_token',
      });
    }
    expect(await refusal(VoiceClient.connect(v.served.wsUrl, null))).toMatchObject({ code: 'invalid_token', close: 4401 });
  });

  it('an unknown chat session id: protocol_error, 4400', async () => {
    const token = await widgetToken(v.t, starter);
    const r = await refusal(VoiceClient.connect(v.served.wsUrl, token, { sessionId: 'sess_doesnotexist' }));
    expect(r).toMatchObject({ code: 'protocol_error', close: 4400, message: expect.stringMatching(/Unknown chat session/) });
  });

  it('over the per-organisation limit (Starter: 5): too_many_voice_sessions, 4429; a slot frees when a session ends', async () => {
    const org = await createVoiceOrg(v.t);
    const token = await widgetToken(v.t, org);
    const open = Array.from({ length: 5 }, () => VoiceClient.connect(v.served.wsUrl, token));
    await Promise.all(open.map((c) => c.type('ready')));
    const r = await refusal(VoiceClient.connect(v.served.wsUrl, token));
    expect(r).toEqual({ code: 'too_many_voice_sessions', message: expect.stringMatching(/already has 5 voice/), close: 4429, reason: 'too_many_voice_sessions' });
    // Another organisation is not affected.
    const other = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, starter));
    await other.type('ready');
    open[0]!.json({ type: 'stop' });
    await open[0]!.closed;
    const again = VoiceClient.connect(v.served.wsUrl, token);
    await again.type('ready');
    for (const c of [...open.slice(1), other, again]) c.close();
    await Promise.all([...open.slice(1), other, again].map((c) => c.closed));
  });

  it('upstream down (refuses the connection, or nothing listening): upstream_error, 4502', async () => {
    const token = await widgetToken(v.t, starter);
    v.fake.fault({ kind: 'refuse' });
    try {
      const r = await refusal(VoiceClient.connect(v.served.wsUrl, token));
      expect(r).toEqual({ code: 'upstream_error', message: expect.stringMatching(/voice service is not answering/), close: 4502, reason: 'upstream_error' });
    } finally {
      v.fake.fault(null);
    }
    const deps = { ...v.t.deps, config: { ...v.t.deps.config, realtime: { apiKey: 'sk-x', model: 'gpt-realtime', url: 'ws://127.0.0.1:9/v1/realtime' } } };
    const nowhere = await serveAppWithVoice(deps);
    try {
      expect(await refusal(VoiceClient.connect(nowhere.wsUrl, token))).toMatchObject({ code: 'upstream_error', close: 4502 });
      await until(() => nowhere.gateway.sessions() === 0, 5000, 'session end');
    } finally {
      await nowhere.close();
    }
  });

  it('no realtime provider configured: voice_unavailable, 4503', async () => {
    const deps = { ...v.t.deps, config: { ...v.t.deps.config, realtime: null } };
    const served = await serveAppWithVoice(deps);
    try {
      const r = await refusal(VoiceClient.connect(served.wsUrl, await widgetToken(v.t, starter)));
      expect(r).toEqual({ code: 'voice_unavailable', message: expect.stringMatching(/No realtime voice provider/), close: 4503, reason: 'voice_unavailable' });
    } finally {
      await served.close();
    }
  });

  it('upgrades on any other path are answered 404 and closed; the app still serves HTTP on the same port', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(v.served.url.replace('http', 'ws') + '/graphql');
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
      ws.on('open', () => reject(new Error('upgraded')));
      ws.on('error', () => {});
    });
    expect(status).toBe(404);
    expect((await fetch(`${v.served.url}/healthz`)).status).toBe(200);
  });
});
