/**
 * The widget's conversation store, without a DOM: streamed answers, failed requests, the stored
 * session id, history, ratings and spoken turns, against a scripted client of the widget API.
 */
import { describe, expect, it, vi } from 'vitest';
import { WidgetError, type Citation, type HistoryMessage, type Session } from '../../widget/src/api';
import { createConversation, type AnswerMessage, type ConversationState } from '../../widget/src/conversation-store';
import type { SseEvent } from '../../widget/src/sse';
import type { SessionStore, WidgetConfig } from '../../widget/src/types';

const config: WidgetConfig = { org: 'acme', kb: 'kb_1', theme: 'light', voice: true, voiceBackgroundSeconds: 30, base: 'https://gw.example/' };
const session = (token = 'tok_1'): Session => ({ token, renewAt: Date.now() + 60_000, kb: { id: 'kb_1', name: 'Zephyr support' }, voice: { available: true } });
const citation: Citation = { marker: 1, filename: 'zephyr.md', url: null, page: null, heading: 'Maker', snippet: 'Northwind Aerial makes it.' };

const event = (name: string, data: unknown): SseEvent => ({ event: name, data: JSON.stringify(data) });

function memoryStore(initial: string | null = null): SessionStore & { value: string | null } {
  return {
    value: initial,
    get() {
      return this.value;
    },
    set(id) {
      this.value = id;
    },
    clear() {
      this.value = null;
    },
  };
}

/** A widget API whose chat replies are scripted: each call to chat() plays the next script. */
function scriptedApi(scripts: Array<(body: { message: string; session_id?: string }) => AsyncGenerator<SseEvent>>, history: HistoryMessage[] = []) {
  const calls = { chat: [] as Array<{ message: string; session_id?: string }>, rate: [] as unknown[], sessions: 0 };
  return {
    calls,
    createSession: vi.fn(async () => {
      calls.sessions++;
      return session(`tok_${calls.sessions}`);
    }),
    fetchHistory: vi.fn(async () => history),
    async *chat(_config: WidgetConfig, _session: Session, body: { message: string; session_id?: string }) {
      calls.chat.push(body);
      const script = scripts.shift();
      if (!script) throw new Error('no scripted reply left');
      yield* script(body);
    },
    rate: vi.fn(async (_config: WidgetConfig, _session: Session, body: unknown) => {
      calls.rate.push(body);
    }),
  };
}

const answers = (state: ConversationState) => state.messages.filter((m): m is AnswerMessage => m.kind === 'answer');

describe('conversation store', () => {
  it('appends streamed deltas to the last answer, then finishes it with its sources', async () => {
    const texts: string[] = [];
    const api = scriptedApi([
      async function* () {
        yield event('session', { session_id: 'sess_abc' });
        yield event('delta', { text: 'Northwind ' });
        yield event('delta', { text: 'Aerial [1]' });
        yield event('done', { answer: 'Northwind Aerial [1].', citations: [citation], message_id: 'msg_1' });
      },
    ]);
    const conversation = createConversation(config, memoryStore(), api);
    conversation.subscribe((state) => {
      const last = answers(state).at(-1);
      if (last && !last.done) texts.push(last.text);
    });

    await conversation.ask('Who makes the Zephyr-9?');

    expect(texts).toEqual(['', 'Northwind ', 'Northwind Aerial [1]']);
    const { messages, busy, announcement } = conversation.state;
    expect(messages.map((m) => m.kind)).toEqual(['user', 'answer']);
    expect(messages[0]).toMatchObject({ text: 'Who makes the Zephyr-9?', status: 'sent' });
    expect(messages[1]).toMatchObject({ text: 'Northwind Aerial [1].', citations: [citation], done: true, messageId: 'msg_1' });
    expect(busy).toBe(false);
    expect(announcement?.text).toBe('Assistant: Northwind Aerial [1].');
  });

  it('shows a typing indicator until the first delta, and is busy while streaming', async () => {
    const seen: Array<{ kinds: string; busy: boolean }> = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const api = scriptedApi([
      async function* () {
        await gate;
        yield event('delta', { text: 'Hi' });
        yield event('done', { answer: 'Hi', citations: [] });
      },
    ]);
    const conversation = createConversation(config, memoryStore(), api);
    conversation.subscribe((state) => seen.push({ kinds: state.messages.map((m) => m.kind).join(','), busy: state.busy }));
    const asked = conversation.ask('Hello?');
    expect(conversation.state.busy).toBe(true);
    expect(conversation.state.messages.map((m) => m.kind)).toEqual(['user', 'typing']);
    await conversation.ask('A second question while busy');
    expect(api.calls.chat).toHaveLength(0);
    release();
    await asked;
    expect(seen.at(-1)).toEqual({ kinds: 'user,answer', busy: false });
    expect(seen.some((s) => s.kinds === 'user,answer' && s.busy)).toBe(true);
  });

  it('marks the question failed and keeps it when nothing was answered', async () => {
    const api = scriptedApi([
      async function* () {
        throw new WidgetError('rate_limited', 'slow down', 7);
      },
      async function* () {
        yield event('done', { answer: 'Answered', citations: [] });
      },
    ]);
    const conversation = createConversation(config, memoryStore(), api);

    await conversation.ask('Is it waterproof?');

    expect(conversation.state.messages).toEqual([expect.objectContaining({ kind: 'user', text: 'Is it waterproof?', status: 'failed' })]);
    expect(conversation.state.notice?.text).toBe("You're sending messages too quickly. Please wait 7 seconds and try again.");
    expect(conversation.state.busy).toBe(false);

    // Sending again replaces the failed question and clears the notice.
    await conversation.ask('Is it waterproof?');
    expect(conversation.state.messages.map((m) => [m.kind, m.kind === 'user' ? m.status : m.kind === 'answer' && m.text])).toEqual([
      ['user', 'sent'],
      ['answer', 'Answered'],
    ]);
    expect(conversation.state.notice).toBeNull();
  });

  it('keeps a partly streamed answer (and its question) when the stream breaks', async () => {
    const api = scriptedApi([
      async function* () {
        yield event('delta', { text: 'Half an ans' });
      },
    ]);
    const conversation = createConversation(config, memoryStore(), api);
    await conversation.ask('Tell me everything');
    expect(conversation.state.messages).toEqual([
      expect.objectContaining({ kind: 'user', status: 'sent' }),
      expect.objectContaining({ kind: 'answer', text: 'Half an ans', done: false }),
    ]);
    expect(conversation.state.notice?.text).toMatch(/Can't reach the assistant/);
  });

  it('persists the session id and continues that conversation with it', async () => {
    const sessions = memoryStore();
    const reply = async function* () {
      yield event('session', { session_id: 'sess_keep1' });
      yield event('done', { answer: 'ok', citations: [] });
    };
    const api = scriptedApi([reply, reply]);
    const conversation = createConversation(config, sessions, api);

    await conversation.ask('First');
    expect(sessions.value).toBe('sess_keep1');
    await conversation.ask('Second');
    expect(api.calls.chat.map((b) => b.session_id)).toEqual([undefined, 'sess_keep1']);

    conversation.reset();
    expect(sessions.value).toBeNull();
    expect(conversation.state.announcement?.text).toBe('Started a new conversation.');
  });

  it('restores the stored conversation on start, or greets when there is none', async () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'Who makes it?', citations: [] },
      { role: 'assistant', content: 'Northwind [1]', citations: [citation], message_id: 'msg_9', feedback: 'up' },
    ];
    const restored = createConversation(config, memoryStore('sess_old1'), scriptedApi([], history));
    await restored.start();
    expect(restored.state.session?.kb.name).toBe('Zephyr support');
    expect(restored.state.messages).toEqual([
      expect.objectContaining({ kind: 'user', text: 'Who makes it?', status: 'sent' }),
      expect.objectContaining({ kind: 'answer', text: 'Northwind [1]', done: true, messageId: 'msg_9', rating: 'up' }),
    ]);

    const fresh = createConversation(config, memoryStore(), scriptedApi([]));
    const starting = fresh.start();
    expect(fresh.state.messages).toEqual([expect.objectContaining({ kind: 'note', text: 'Connecting…' })]);
    await starting;
    expect(fresh.state.messages).toEqual([expect.objectContaining({ kind: 'greeting', kbName: 'Zephyr support' })]);
  });

  it('is unavailable, and drops the conversation, when the assistant refuses the page', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const api = scriptedApi([]);
    api.createSession.mockRejectedValueOnce(new WidgetError('refused', 'Origin not allowed'));
    const conversation = createConversation(config, memoryStore(), api);
    await conversation.start();
    expect(conversation.state.unavailable).toEqual({ message: 'Origin not allowed' });
    expect(conversation.state.messages).toEqual([]);
    await conversation.ask('Anyone there?');
    expect(api.calls.chat).toHaveLength(0);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('Origin not allowed'));
    error.mockRestore();
  });

  it('renews an expired token once and retries the question', async () => {
    const api = scriptedApi([
      async function* () {
        throw new WidgetError('expired', 'token expired');
      },
      async function* () {
        yield event('done', { answer: 'fresh', citations: [] });
      },
    ]);
    const conversation = createConversation(config, memoryStore(), api);
    await conversation.ask('Still there?');
    expect(api.calls.sessions).toBe(2);
    expect(answers(conversation.state).map((a) => a.text)).toEqual(['fresh']);
  });

  it('stores a rating only once the server took it', async () => {
    const api = scriptedApi([
      async function* () {
        yield event('session', { session_id: 'sess_rate1' });
        yield event('done', { answer: 'ok', citations: [], message_id: 'msg_2' });
      },
    ]);
    const conversation = createConversation(config, memoryStore(), api);
    await conversation.ask('Rate me');
    const answer = answers(conversation.state)[0]!;
    await conversation.rate(answer.id, 'down', 'too short');
    expect(api.calls.rate).toEqual([{ session_id: 'sess_rate1', message_id: 'msg_2', rating: 'down', comment: 'too short' }]);
    expect(answers(conversation.state)[0]!.rating).toBe('down');

    api.rate.mockRejectedValueOnce(new WidgetError('network', 'network'));
    await conversation.rate(answer.id, null);
    expect(answers(conversation.state)[0]!.rating).toBe('down');
    expect(conversation.state.announcement?.text).toBe('Your feedback could not be sent');
  });

  it('puts a spoken turn into the same conversation, with sources that arrive after the transcript', () => {
    const conversation = createConversation(config, memoryStore(), scriptedApi([]));
    conversation.voiceThinking();
    expect(conversation.state.messages).toEqual([
      expect.objectContaining({ kind: 'user', status: 'pending', spoken: true, text: '' }),
      expect.objectContaining({ kind: 'typing' }),
    ]);
    conversation.voiceTranscript('user', { delta: 'Who ' });
    conversation.voiceTranscript('user', { delta: 'makes it?' });
    conversation.voiceTranscript('assistant', { delta: 'North' });
    conversation.voiceTranscript('assistant', { text: 'Northwind [1]' });
    conversation.voiceCitations([citation]);
    expect(conversation.state.messages).toEqual([
      expect.objectContaining({ kind: 'user', status: 'sent', text: 'Who makes it?' }),
      expect.objectContaining({ kind: 'answer', text: 'Northwind [1]', done: true, citations: [citation] }),
    ]);

    // A question nothing was transcribed of leaves no bubble behind when the session ends.
    conversation.voiceThinking();
    conversation.voiceEnded();
    expect(conversation.state.messages.map((m) => m.kind)).toEqual(['user', 'answer']);
  });
});
