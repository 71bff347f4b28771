/**
 * GET /metrics reports the voice gateway: sessions open on the process, sessions ended by reason
 * (refusals included) and the length of the sessions that talked.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createVoiceOrg, createVoiceTestApp, until, VoiceClient, widgetToken } from './voice-fixture';

const TOKEN = 'metrics-token-0123456789';
let v: Awaited<ReturnType<typeof createVoiceTestApp>>;
beforeAll(async () => {
  v = await createVoiceTestApp({ env: { METRICS_TOKEN: TOKEN } });
});
afterAll(() => v?.close());

/** The value of one sample line, 0 when absent (prom-client omits unlabelled series never touched). */
async function sample(series: string): Promise<number> {
  const text = await (await fetch(`${v.served.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

it('counts open voice sessions, ended ones by reason, and their length', async () => {
  const org = await createVoiceOrg(v.t);
  const before = {
    open: await sample('groundwork_voice_sessions_open'),
    stopped: await sample('groundwork_voice_sessions_ended_total{reason="stopped"}'),
    refused: await sample('groundwork_voice_sessions_ended_total{reason="voice_not_in_plan"}'),
    lengths: await sample('groundwork_voice_session_duration_seconds_count'),
  };

  const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, org));
  await client.type('ready');
  expect(await sample('groundwork_voice_sessions_open')).toBe(before.open + 1);
  client.json({ type: 'stop' });
  await client.closed;
  await until(async () => (await sample('groundwork_voice_sessions_open')) === before.open, 5_000, 'the session to end');
  expect(await sample('groundwork_voice_sessions_ended_total{reason="stopped"}')).toBe(before.stopped + 1);
  expect(await sample('groundwork_voice_session_duration_seconds_count')).toBe(before.lengths + 1);

  // A refused session is counted by its refusal code and has no length.
  const free = await createVoiceOrg(v.t, { plan: 'free' });
  await VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, free)).closed;
  await until(async () => (await sample('groundwork_voice_sessions_ended_total{reason="voice_not_in_plan"}')) === before.refused + 1, 5_000, 'the refusal to be counted');
  expect(await sample('groundwork_voice_session_duration_seconds_count')).toBe(before.lengths + 1);
  expect(await sample('groundwork_voice_sessions_open')).toBe(before.open);
});
