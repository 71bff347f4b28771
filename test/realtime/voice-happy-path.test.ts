/**
 * A spoken question end to end through the gateway: real WebSocket connections on loopback, the
 * real app with a real KB and retrieval, the fake Realtime server upstream. Audio in, the model's
 * search_knowledge_base call answered by the same retrieval as text chat, audio + transcripts +
 * citations out, both turns stored in the chat session, seconds metered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dominantFrequencyHz, silencePcm16, tonePcm16 } from '../fakes/realtime-server';
import { graphqlClient, trpcClient } from '../helpers/api-client';
import { widgetClient, type WidgetOrg } from '../widget/widget-fixture';
import { createVoiceOrg, createVoiceTestApp, SHOP, until, VoiceClient, widgetToken } from './voice-fixture';

let v: Awaited<ReturnType<typeof createVoiceTestApp>>;
let org: WidgetOrg;

beforeAll(async () => {
  v = await createVoiceTestApp({ script: { userTranscripts: ['How long can the Zephyr-9 fly?'], replyMs: 1200, toneHz: 440 } });
  org = await createVoiceOrg(v.t);
});
afterAll(() => v?.close());

/** About a second of "speech" (a 300 Hz tone) and then enough quiet for the fake's VAD to end the turn. */
const question = () => Buffer.concat([tonePcm16(1000, 300), silencePcm16(600)]);

describe('voice gateway: a spoken question', () => {
  it('answers from the KB with audio, transcripts and citations, and stores both turns in the chat session', async () => {
    const token = await widgetToken(v.t, org);
    const client = VoiceClient.connect(v.served.wsUrl, token);
    await client.opened;
    expect(client.ws.protocol).toBe('groundwork.voice.v1');
    const ready = await client.type('ready');
    expect(ready.session_id).toMatch(/^sess_/);
    const upstream = v.fake.sessions.at(-1)!;

    // The gateway configured the upstream itself, GA shape, with a key the browser never saw.
    expect(upstream.headers.authorization).toBe(`Bearer ${v.fake.apiKey}`);
    expect(upstream.headers['openai-beta']).toBeUndefined();
    expect(upstream.model).toBe('gpt-realtime');
    expect(upstream.sessionConfig).toMatchObject({
      type: 'realtime',
      audio: {
        input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad' }, transcription: { model: expect.any(String) } },
        output: { format: { type: 'audio/pcm', rate: 24000 } },
      },
      tools: [{ type: 'function', name: 'search_knowledge_base', parameters: { required: ['query'] } }],
    });
    expect(upstream.sessionConfig.instructions).toMatch(/search_knowledge_base/);
    expect(upstream.sessionConfig.instructions).toMatch(/\[1\]/);

    await client.stream(question(), 100);
    const user = await client.next((m) => m.type === 'transcript' && m.role === 'user' && m.final);
    expect(user.text).toBe('How long can the Zephyr-9 fly?');
    const answer = await client.next((m) => m.type === 'transcript' && m.role === 'assistant' && m.final);
    expect(answer.text).toBe('The Zephyr-9 can fly for 47 minutes on a single battery charge. [1]');
    const citations = await client.type('citations');
    expect(citations.citations).toEqual([
      expect.objectContaining({ marker: 1, filename: 'zephyr.md', heading: expect.stringMatching(/Flight/), snippet: expect.stringMatching(/47 minutes/) }),
    ]);
    expect(Object.keys(citations.citations[0]).sort()).toEqual(['filename', 'heading', 'marker', 'page', 'snippet', 'source_type', 'title', 'url', 'used']);
    // Live deltas came before the finals.
    expect(client.messages.some((m) => m.type === 'transcript' && m.role === 'user' && m.delta)).toBe(true);
    expect(client.messages.filter((m) => m.type === 'transcript' && m.role === 'assistant' && m.delta).map((m) => m.delta).join('')).toBe(answer.text);

    // The model's tool call ran the real retrieval; the numbered passages went back as function_call_output.
    expect(upstream.toolCalls).toHaveLength(1);
    const output = JSON.parse(upstream.toolCalls[0]!.output!);
    expect(output.found).toBe(true);
    expect(output.passages[0]).toMatchObject({ marker: 1, text: expect.stringMatching(/47 minutes/) });
    const types = upstream.clientEvents.map((e) => e.type);
    expect(types.indexOf('conversation.item.create')).toBeLessThan(types.lastIndexOf('response.create'));

    // The audio the browser got is the upstream's, byte for byte, as raw pcm16 frames.
    await until(() => client.frames.reduce((n, f) => n + f.bytes.length, 0) >= 57_600, 5000, 'all audio');
    const played = Buffer.concat(client.frames.map((f) => f.bytes));
    expect(played.length).toBe(57_600);
    expect(dominantFrequencyHz(played)).toBeGreaterThan(430);
    expect(dominantFrequencyHz(played)).toBeLessThan(450);
    // And what reached the upstream is the browser's audio at 24 kHz (a 300 Hz tone reads as 300 Hz).
    expect(Math.abs(dominantFrequencyHz(upstream.inputAudio()) - 300)).toBeLessThan(6);

    // `speaking` comes before the first audio frame, `listening` once the answer has had time to play.
    await until(() => client.messages.filter((m) => m.type === 'state').length >= 4, 5000, 'listening again');
    expect(client.messages.filter((m) => m.type === 'state').map((m) => m.state)).toEqual(['listening', 'thinking', 'speaking', 'listening']);

    // Spoken turns are in the same chat session as typed ones: history shows them, typing continues them.
    const w = widgetClient(v.t.app, SHOP);
    await until(async () => {
      const h = await w.post('history', { session_id: ready.session_id }, token);
      return ((await h.json()) as any).messages?.length === 2;
    }, 5000, 'stored turns');
    const typed = await w.chat(token, { message: 'How long does charging take?', session_id: ready.session_id });
    expect(typed.status).toBe(200);
    const history = (await (await w.post('history', { session_id: ready.session_id }, token)).json()) as any;
    expect(history.messages.map((m: any) => [m.role, m.content.slice(0, 40)])).toEqual([
      ['user', 'How long can the Zephyr-9 fly?'],
      ['assistant', 'The Zephyr-9 can fly for 47 minutes on a'],
      ['user', 'How long does charging take?'],
      ['assistant', expect.any(String)],
    ]);
    expect(history.messages[1].citations).toEqual(citations.citations);

    client.json({ type: 'stop' });
    expect(await client.closed).toEqual({ code: 1000, reason: '' });
    expect(await upstream.closed).toBe(1000);
    await until(() => v.served.gateway.sessions() === 0, 5000, 'session end');

    // Metered: readable through tRPC and GraphQL.
    const usage = (await trpcClient(v.t.app, org.apiKey).query('org.usage')).body.result.data.usage;
    expect(usage.voice_sessions).toBe(1);
    expect(usage.voice_seconds).toBeGreaterThan(0);
    // Tokens from each response.done (the tool call's and the answer's: 120 input, 60 output each in the fake).
    expect([usage.voice_input_tokens, usage.voice_output_tokens]).toEqual([240, 120]);
    const gql = await graphqlClient(v.t.app, org.apiKey)('{ organization { usage { voiceSeconds voiceSessions } } }');
    expect(gql.body.data.organization.usage).toEqual({ voiceSeconds: usage.voice_seconds, voiceSessions: 1 });
  });

  it('finds what text chat finds for the same question, and refuses what text chat refuses', async () => {
    const token = await widgetToken(v.t, org);
    const w = widgetClient(v.t.app, SHOP);
    const chat = await w.chat(token, { message: 'How long can the Zephyr-9 fly?' });
    expect(chat.status, chat.text).toBe(200);
    const chatSources = chat.events.find((e) => e.event === 'citations')!.data.citations;

    v.fake.setScript({ pace: 0.05, userTranscripts: ['How long can the Zephyr-9 fly?', 'What is the capital of Peru?'] });
    const client = VoiceClient.connect(v.served.wsUrl, token);
    await client.type('ready');
    const upstream = v.fake.sessions.at(-1)!;
    await client.stream(question(), 100);
    await client.next((m) => m.type === 'transcript' && m.role === 'assistant' && m.final);
    const passages = JSON.parse(upstream.toolCalls[0]!.output!).passages;
    expect(passages.map((p: any) => p.text.slice(0, 60))).toEqual(chatSources.map((c: any) => c.snippet.slice(0, 60)));

    const refusedChat = await w.chat(token, { message: 'What is the capital of Peru?' });
    const refusedAnswer = refusedChat.events.find((e) => e.event === 'done')!.data;
    // Text chat refuses, showing its closest passages as not used; voice refuses the same question.
    expect(refusedAnswer.refused).toBe(true);
    expect(refusedAnswer.citations.every((c: any) => c.used === false)).toBe(true);
    await client.stream(question(), 100);
    const second = await client.next((m) => m.type === 'transcript' && m.role === 'assistant' && m.final && m.text !== client.messages.find((x) => x.final && x.role === 'assistant')!.text);
    expect(JSON.parse(upstream.toolCalls[1]!.output!)).toMatchObject({ found: false, passages: [] });
    expect(second.text).toBe(refusedAnswer.answer);
    const lastCitations = client.messages.filter((m) => m.type === 'citations').at(-1)!;
    expect(lastCitations.citations).toEqual([]);
    client.close();
    await client.closed;
  });
});
