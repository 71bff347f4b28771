/**
 * `npm start` with voice: the gateway shares the app's port, and SIGTERM closes open voice sessions
 * politely (`shutting_down`, 4001) and closes their upstream before the process exits 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeRealtime } from '../fakes/realtime-server';
import { startServer } from '../helpers/server-process';
import { VoiceClient } from './voice-fixture';

const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-voice-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('voice on the real server process', () => {
  it('serves /api/widget/voice on the app port and ends voice sessions with shutting_down on SIGTERM', async () => {
    const fake = await startFakeRealtime({ script: { pace: 0.05 } });
    const server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '', OPENAI_REALTIME_API_KEY: fake.apiKey, OPENAI_REALTIME_URL: fake.url });
    try {
      const headers = { 'content-type': 'application/json', 'x-api-key': server.apiKey! };
      const kb = (await (await fetch(`${server.url}/api/kbs`, { method: 'POST', headers, body: JSON.stringify({ name: 'Voice' }) })).json()) as any;
      const on = await fetch(`${server.url}/trpc/org.updateSettings`, { method: 'POST', headers, body: JSON.stringify({ voice_enabled: true }) });
      expect(on.status).toBe(200);
      const origin = 'https://shop.example.com';
      const session = await fetch(`${server.url}/api/widget/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ org: 'default', kb: kb.kb.id }),
      });
      const { token, voice } = (await session.json()) as any;
      expect(voice).toEqual({ available: true, reason: null });

      const client = VoiceClient.connect(`${server.url.replace('http', 'ws')}/api/widget/voice`, token, { origin });
      await client.type('ready');
      const upstream = fake.sessions.at(-1)!;
      const exited = new Promise<number | null>((r) => server.child.once('exit', (code) => r(code)));
      server.child.kill('SIGTERM');
      const [error, closed] = await Promise.all([client.type('error'), client.closed]);
      expect(error).toMatchObject({ code: 'shutting_down', message: expect.stringMatching(/restarting/) });
      expect(closed).toEqual({ code: 4001, reason: 'shutting_down' });
      expect(await upstream.closed).toBe(1000);
      expect(await exited).toBe(0);
    } finally {
      await server.stop();
      await fake.close();
    }
  }, 180_000);
});
