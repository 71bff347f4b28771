/**
 * The gateway against the behaviours of the real Realtime API that a lenient fake hides (issue 24):
 * failed and incomplete responses, answers without the tool, two tool calls in one turn, a spoken
 * preamble, a tool-call response that finishes late, bursty audio and barge-in, stop mid-answer,
 * typed turns continued by voice, a refused API key, and an upstream drop. The fake is strict: a
 * `response.create` during an active response, a truncate past the audio, or a malformed item is
 * refused as OpenAI refuses it, so these tests fail where the real API would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionId } from '../../src/ids';
import { silencePcm16, startFakeRealtime, tonePcm16, type FakeRealtimeScript } from '../fakes/realtime-server';
import { widgetClient, type WidgetOrg } from '../widget/widget-fixture';
import { createVoiceOrg, createVoiceTestApp, serveAppWithVoice, SHOP, until, VoiceClient, widgetToken } from './voice-fixture';

let v: Awaited<ReturnType<typeof createVoiceTestApp>>;
let org: WidgetOrg;

beforeAll(async () => {
  v = await createVoiceTestApp();
  org = await createVoiceOrg(v.t, { plan: 'pro' });
});
afterAll(() => v?.close());

const question = () => Buffer.concat([tonePcm16(700, 300), silencePcm16(600)]);
const FLY = 'How long can the Zephyr-9 fly?';
const CHARGE = 'How long does charging take?';

async function talk(script: FakeRealtimeScript, opts: { sessionId?: string } = {}) {
  v.fake.setScript({ pace: 0.05, ...script });
  const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, org), opts);
  const ready = await client.type('ready');
  return { client, upstream: v.fake.sessions.at(-1)!, sessionId: ready.session_id as string };
}

const finals = (c: VoiceClient) => c.messages.filter((m) => m.type === 'transcript' && m.role === 'assistant' && m.final);
const nextFinal = (c: VoiceClient, n: number) => until(() => finals(c).length >= n, 10_000, `assistant answer ${n}`).then(() => finals(c)[n - 1]!);

async function stored(sessionId: string, n: number) {
  const read = () => v.t.db.selectFrom('chat_messages').selectAll().where('session_id', '=', sessionId as SessionId).orderBy('created_at').orderBy('id').execute();
  await until(async () => (await read()).length >= n, 10_000, `${n} stored messages`);
  return read();
}

describe('responses that do not complete', () => {
  it('a failed response reaches the visitor as a short notice, and the next question is answered', async () => {
    const { client, upstream } = await talk({ turns: ['failed', 'tool'], userTranscripts: [FLY, FLY] });
    await client.stream(question(), 100);
    const notice = await client.type('notice');
    expect(notice).toMatchObject({ code: 'answer_failed', message: expect.stringMatching(/ask again/i) });
    await until(() => client.messages.at(-1)?.type === 'state' && client.messages.at(-1)?.state === 'listening', 5000, 'listening');
    await client.stream(question(), 100);
    expect((await nextFinal(client, 1)).text).toMatch(/47 minutes/);
    expect(upstream.errors).toEqual([]);
    client.close();
  });

  it('an incomplete response (max_output_tokens) keeps what was said and tells the visitor it was cut short', async () => {
    const { client, sessionId } = await talk({ turns: ['incomplete'], userTranscripts: [FLY] });
    await client.stream(question(), 100);
    const notice = await client.type('notice');
    expect(notice.code).toBe('answer_incomplete');
    const answer = await nextFinal(client, 1);
    expect(answer.text.length).toBeGreaterThan(0);
    expect('The Zephyr-9 can fly for 47 minutes on a single battery charge. [1]'.startsWith(answer.text.replace(/…$/, ''))).toBe(true);
    const rows = await stored(sessionId, 2);
    expect(rows.map((r) => [r.role, r.interrupted])).toEqual([
      ['user', false],
      ['assistant', true],
    ]);
    client.close();
  });
});

describe('turns and their sources', () => {
  it('an answer without the tool shows no sources (not the previous turn’s)', async () => {
    const { client } = await talk({ turns: ['tool', 'no_tool'], userTranscripts: [FLY, 'Thanks!'] });
    await client.stream(question(), 100);
    await nextFinal(client, 1);
    await until(() => client.messages.filter((m) => m.type === 'citations').length >= 1, 5000, 'citations');
    expect(client.messages.filter((m) => m.type === 'citations')[0]!.citations).toHaveLength(1);
    await client.stream(question(), 100);
    expect((await nextFinal(client, 2)).text).toMatch(/welcome/);
    await until(() => client.messages.filter((m) => m.type === 'citations').length >= 2, 5000, 'second citations');
    expect(client.messages.filter((m) => m.type === 'citations')[1]!.citations).toEqual([]);
    client.close();
  });

  it('two tool calls in one turn: both outputs go back before one response.create, and the answer cites both', async () => {
    const { client, upstream } = await talk({ turns: ['two_tools'], userTranscripts: [FLY], toolQuery: (_t, n) => (n === 0 ? FLY : CHARGE) });
    await client.stream(question(), 100);
    const answer = await nextFinal(client, 1);
    const types = upstream.clientEvents.map((e) => e.type);
    expect(types.filter((t) => t === 'response.create')).toHaveLength(1);
    expect(types.lastIndexOf('conversation.item.create')).toBeLessThan(types.indexOf('response.create'));
    const outputs = upstream.toolCalls.map((c) => JSON.parse(c.output!));
    // The second search's passages are numbered after the first's, so [n] names one passage in the turn.
    expect(outputs[1].passages[0].marker).toBe(outputs[0].passages.length + 1);
    expect(answer.text).toMatch(/\[1\].*\[\d+\]/);
    await until(() => client.messages.some((m) => m.type === 'citations'), 5000, 'citations');
    const cites = client.messages.find((m) => m.type === 'citations')!.citations;
    expect(cites.map((c: any) => c.marker)).toEqual([1, outputs[1].passages[0].marker]);
    expect(upstream.errors).toEqual([]);
    client.close();
  });

  it('a spoken preamble before the tool call is part of the answer, stored once with the turn’s sources', async () => {
    const { client, sessionId } = await talk({ turns: ['preamble'], userTranscripts: [FLY], preamble: 'Let me look that up.' });
    await client.stream(question(), 100);
    const answer = await nextFinal(client, 1);
    expect(answer.text).toMatch(/^Let me look that up\. .*47 minutes.*\[1\]$/);
    expect(finals(client)).toHaveLength(1);
    const rows = await stored(sessionId, 2);
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant']);
    expect(rows[1]!.content).toBe(answer.text);
    expect(rows[1]!.citations).toHaveLength(1);
    client.close();
  });

  it('response.create waits for the tool-call response’s own response.done (1.5 s late)', async () => {
    const { client, upstream } = await talk({ userTranscripts: [FLY], toolResponseDoneDelayMs: 1500 });
    await client.stream(question(), 100);
    expect((await nextFinal(client, 1)).text).toMatch(/47 minutes/);
    expect(upstream.errors).toEqual([]);
    const types = upstream.serverEvents.map((e) => e.type);
    expect(types.filter((t) => t === 'response.done')).toHaveLength(2);
    client.close();
  });

  it('a user transcript that arrives after the answer is still stored before it', async () => {
    const { client, sessionId } = await talk({ userTranscripts: [FLY], userTranscriptDelayMs: 1200 });
    await client.stream(question(), 100);
    await nextFinal(client, 1);
    const rows = await stored(sessionId, 2);
    expect(rows.map((r) => [r.role, r.content.slice(0, 20)])).toEqual([
      ['user', FLY.slice(0, 20)],
      ['assistant', 'The Zephyr-9 can fly'],
    ]);
    client.close();
  });
});

describe('history is what the visitor heard', () => {
  it('after barge-in on bursty audio the stored answer ends where playback stopped, marked interrupted', async () => {
    // The real API sends audio much faster than real time: all of it is at the gateway long before it has played.
    v.fake.setScript({ pace: 1, audioSpeed: 20, replyMs: 4000, userTranscripts: [FLY], answer: () => 'one two three four five six seven eight nine ten eleven twelve. [1]' });
    const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, org));
    const { session_id: sessionId } = await client.type('ready');
    const upstream = v.fake.sessions.at(-1)!;
    await client.stream(question(), 100);
    await until(() => upstream.serverEvents.some((e) => e.type === 'response.output_audio.done'), 10_000, 'all audio sent');
    await client.stream(tonePcm16(300, 300), 100);
    await client.type('interrupt');
    client.json({ type: 'interrupted', played_ms: 1000 });
    await until(() => upstream.truncations.length === 1, 5000, 'truncate');
    expect(upstream.errors).toEqual([]);
    const rows = await stored(sessionId, 2);
    const answer = rows.find((r) => r.role === 'assistant')!;
    expect(answer.interrupted).toBe(true);
    // 1 s of a 4 s answer: about the first quarter of its words, never the unheard rest.
    expect(answer.content.split(/\s+/).length).toBeGreaterThanOrEqual(2);
    expect(answer.content.split(/\s+/).length).toBeLessThanOrEqual(5);
    expect('one two three four five six seven eight nine ten eleven twelve. [1]'.startsWith(answer.content.replace(/…$/, ''))).toBe(true);
    // The model forgot the unheard part too (OpenAI deletes a truncated item's transcript).
    expect(upstream.conversation.find((i) => i.id === upstream.truncations[0]!.item_id)!.text).toBeNull();
    client.close();
  });

  it('stop in the middle of an answer stores the part that played, marked interrupted', async () => {
    v.fake.setScript({ pace: 1, replyMs: 4000, userTranscripts: [FLY], answer: () => 'one two three four five six seven eight nine ten eleven twelve. [1]' });
    const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, org));
    const { session_id: sessionId } = await client.type('ready');
    await client.stream(question(), 100);
    await client.next((m) => m.type === 'state' && m.state === 'speaking');
    await new Promise((r) => setTimeout(r, 1200));
    client.json({ type: 'stop' });
    await client.closed;
    const rows = await stored(sessionId, 2);
    const answer = rows.find((r) => r.role === 'assistant')!;
    expect(answer.interrupted).toBe(true);
    expect(answer.content.length).toBeGreaterThan(0);
    expect(answer.content.split(/\s+/).length).toBeLessThan(12);
    expect(rows.find((r) => r.role === 'user')!.interrupted).toBe(false);
  });
});

describe('a voice session continuing a typed conversation', () => {
  it('seeds the upstream conversation with the recent typed turns before the visitor speaks', async () => {
    const token = await widgetToken(v.t, org);
    const w = widgetClient(v.t.app, SHOP);
    const first = await w.chat(token, { message: FLY });
    expect(first.status).toBe(200);
    const sessionId = first.events.find((e) => e.event === 'done')!.data.session_id as string;
    const typedAnswer = first.events.find((e) => e.event === 'done')!.data.answer as string;
    const { client, upstream } = await talk({ userTranscripts: ['And how long does charging take?'] }, { sessionId });
    await until(() => upstream.conversation.filter((i) => i.fromClient).length === 2, 5000, 'seeded items');
    expect(upstream.conversation.filter((i) => i.fromClient).map((i) => [i.role, i.text])).toEqual([
      ['user', FLY],
      // Markers name passages the voice model never saw: they are left out.
      ['assistant', typedAnswer.replace(/\s*\[\d+\]/g, '')],
    ]);
    expect(upstream.errors).toEqual([]);
    client.close();
  });
});

describe('the upstream refuses the API key', () => {
  it('401 marks voice unavailable with a reason admins see, until the key changes', async () => {
    const bad = { ...v.t.deps, config: { ...v.t.deps.config, realtime: { ...v.t.deps.config.realtime!, apiKey: 'sk-revoked-key' } } };
    const served = await serveAppWithVoice(bad);
    try {
      const client = VoiceClient.connect(served.wsUrl, await widgetToken(v.t, org));
      const [error, closed] = await Promise.all([client.type('error'), client.closed]);
      expect(error).toMatchObject({ code: 'voice_unavailable', message: expect.not.stringMatching(/try again/i) });
      expect(closed.code).toBe(4503);
      // Admins see why in Settings (tRPC here; GraphQL and REST share the service).
      const { getOrgSettings } = await import('../../src/services/orgs/org-settings');
      const { createContext } = await import('../../src/context');
      const orgRow = await v.t.db.selectFrom('organizations').selectAll().where('slug', '=', org.slug).executeTakeFirstOrThrow();
      const seen = (await getOrgSettings(createContext(bad, orgRow, { requestId: 'test' }))).settings;
      expect(seen.voice_available).toBe(false);
      expect(seen.voice_unavailable_reason).toMatch(/refused the API key/);
      // The widget is no longer offered voice; a new connection is refused without calling OpenAI.
      const before = v.fake.sessions.length;
      const again = VoiceClient.connect(served.wsUrl, await widgetToken(v.t, org));
      expect((await again.type('error')).code).toBe('voice_unavailable');
      expect(v.fake.sessions.length).toBe(before);
      // The working key (another key) is not affected.
      const ok = (await getOrgSettings(createContext(v.t.deps, orgRow, { requestId: 'test' }))).settings;
      expect(ok.voice_available).toBe(true);
    } finally {
      await served.close();
    }
  });
});

describe('the upstream drops mid-conversation', () => {
  it('reconnects once with the conversation re-seeded; a second drop ends with the notice', async () => {
    v.fake.setScript({ pace: 0.05, userTranscripts: [FLY, CHARGE], replyMs: 1200 });
    const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, org));
    await client.type('ready');
    const first = v.fake.sessions.at(-1)!;
    await client.stream(question(), 100);
    await nextFinal(client, 1);
    const secondSession = v.fake.sessions.length;
    // The connection goes away without a close frame, as a network drop does.
    first.drop();
    await first.closed;
    await until(() => v.fake.sessions.length > secondSession, 10_000, 'reconnected upstream');
    const second = v.fake.sessions.at(-1)!;
    await until(() => second.conversation.filter((i) => i.fromClient).length >= 2, 5000, 're-seeded');
    expect(second.conversation.filter((i) => i.fromClient).map((i) => i.role)).toEqual(['user', 'assistant']);
    expect(second.conversation.filter((i) => i.fromClient)[0]!.text).toBe(FLY);
    await client.stream(question(), 100);
    expect((await nextFinal(client, 2)).text).toMatch(/\[1\]/);
    second.drop();
    const [error, closed] = await Promise.all([client.type('error'), client.closed]);
    expect(error.code).toBe('upstream_error');
    expect(closed.code).toBe(4502);
  });
});

describe('the strict fake refuses what OpenAI refuses', () => {
  it('session.update: unknown field, wrong rate, format or voice, missing type; the session keeps its config', async () => {
    const fake = await startFakeRealtime();
    try {
      const ws = new WebSocket(fake.url, { headers: { Authorization: `Bearer ${fake.apiKey}` } });
      const events: any[] = [];
      ws.on('message', (d) => events.push(JSON.parse(String(d))));
      await new Promise((r) => ws.once('open', r));
      const send = async (session: unknown) => {
        const n = events.length;
        ws.send(JSON.stringify({ type: 'session.update', event_id: 'evt_1', session }));
        await until(() => events.length > n, 2000, 'answer');
        return events.at(-1);
      };
      expect((await send({ type: 'realtime', voice: 'marin' })).error).toEqual({
        type: 'invalid_request_error',
        code: 'unknown_parameter',
        message: "Unknown parameter: 'session.voice'.",
        param: 'session.voice',
        event_id: 'evt_1',
      });
      expect((await send({ type: 'realtime', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } })).error).toMatchObject({
        code: 'invalid_value',
        param: 'session.audio.input.format.rate',
      });
      expect((await send({ type: 'realtime', audio: { output: { format: { type: 'audio/wav' } } } })).error).toMatchObject({ code: 'invalid_value', param: 'session.audio.output.format.type' });
      expect((await send({ type: 'realtime', audio: { output: { voice: 'nova' } } })).error).toMatchObject({ code: 'invalid_value', param: 'session.audio.output.voice' });
      expect((await send({ instructions: 'x' })).error).toMatchObject({ code: 'missing_required_parameter', param: 'session.type' });
      expect((await send({ type: 'realtime', tools: [{ type: 'function', name: 'x', meta: {} }] })).error).toMatchObject({ code: 'unknown_parameter', param: 'session.tools[0].meta' });
      expect(fake.sessions[0]!.sessionConfig).toBeNull();
      expect((await send({ type: 'realtime', audio: { input: { turn_detection: { type: 'semantic_vad', eagerness: 'low' } } } })).type).toBe('session.updated');
      ws.close();
    } finally {
      await fake.close();
    }
  });

  it('401 with invalid_api_key at the upgrade, 403 when the account may not use the API', async () => {
    const fake = await startFakeRealtime();
    try {
      const status = (headers: Record<string, string>) =>
        new Promise<{ status: number; body: any }>((resolve) => {
          const ws = new WebSocket(fake.url, { headers });
          ws.on('unexpected-response', (_req, res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(body) }));
          });
          ws.on('error', () => {});
        });
      expect(await status({ Authorization: 'Bearer sk-wrong' })).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key', type: 'invalid_request_error' } } });
      fake.fault({ kind: 'forbidden' });
      expect((await status({ Authorization: `Bearer ${fake.apiKey}` })).status).toBe(403);
    } finally {
      await fake.close();
    }
  });
});

describe('the upstream protocol types come from the openai package', () => {
  it('a field the real API does not have fails tsc (checked by npm test’s tsc --noEmit)', async () => {
    const { sessionConfig } = await import('../../realtime/upstream');
    const config: import('openai/resources/realtime/realtime').RealtimeSessionCreateRequest = sessionConfig('gpt-realtime');
    // @ts-expect-error GA sessions have no `temperature` (the beta shape did): tsc refuses it.
    const beta: import('openai/resources/realtime/realtime').RealtimeSessionCreateRequest = { type: 'realtime', temperature: 0.8 };
    // @ts-expect-error the beta event name is not a server event of the GA protocol.
    const old: import('../../realtime/upstream').UpstreamEvent['type'] = 'response.audio.delta';
    expect([config.type, beta.type, old]).toEqual(['realtime', 'realtime', 'response.audio.delta']);
  });
});

describe('voice settings (Workspace -> Settings -> Voice)', () => {
  it('turn detection, voice and instructions suffix reach the upstream session; bad values are refused', async () => {
    const { trpcClient } = await import('../helpers/api-client');
    const other = await createVoiceOrg(v.t, { plan: 'pro' });
    const api = trpcClient(v.t.app, other.apiKey);
    const bad = await api.mutation('org.updateSettings', { voice_settings: { voice: 'nova' } });
    expect(bad.status).toBe(400);
    const res = await api.mutation('org.updateSettings', { voice_settings: { turn_detection: 'semantic_vad', eagerness: 'low', voice: 'cedar', instructions_suffix: 'Call the drone "Zephyr".' } });
    expect(res.status).toBe(200);
    expect(res.body.result.data.settings.voice_settings).toEqual({ turn_detection: 'semantic_vad', eagerness: 'low', voice: 'cedar', instructions_suffix: 'Call the drone "Zephyr".' });
    v.fake.setScript({ pace: 0.05 });
    const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, other));
    await client.type('ready');
    const cfg = v.fake.sessions.at(-1)!.sessionConfig;
    expect(cfg.audio.input.turn_detection).toMatchObject({ type: 'semantic_vad', eagerness: 'low' });
    expect(cfg.audio.output.voice).toBe('cedar');
    expect(cfg.instructions).toMatch(/search_knowledge_base[\s\S]*Call the drone "Zephyr"\.$/);
    client.close();
  });

  it("a KB's override reaches its sessions, over the organisation's settings", async () => {
    const { restClient } = await import('../helpers/api-client');
    const org = await createVoiceOrg(v.t, { plan: 'pro' });
    const rest = restClient(v.t.app, org.apiKey);
    expect((await rest.patch('/api/settings/voice', { voice: 'sage', instructions_suffix: 'Org rule.' })).status).toBe(200);
    const kbRes = await rest.patch(`/api/kbs/${org.kbId}/voice-settings`, { turn_detection: 'semantic_vad', eagerness: 'high', instructions_suffix: 'KB rule.' });
    expect(kbRes.status).toBe(200);
    v.fake.setScript({ pace: 0.05 });
    const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, org));
    await client.type('ready');
    const cfg = v.fake.sessions.at(-1)!.sessionConfig;
    expect(cfg.audio.input.turn_detection).toMatchObject({ type: 'semantic_vad', eagerness: 'high' });
    expect(cfg.audio.output.voice).toBe('sage');
    expect(cfg.instructions).toMatch(/KB rule\.$/);
    expect(cfg.instructions).not.toMatch(/Org rule/);
    client.close();
  });
});
