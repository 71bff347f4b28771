/**
 * The conversation behind the chat panel, without a DOM: its messages, the widget session, whether
 * an answer is streaming, and the chat session id kept in the page's storage. Views subscribe and
 * render from the state; they never change it except through these actions. Every state is a new
 * object and every changed message a new object, so a view finds what changed by identity.
 *
 * Typed and spoken turns go into the same list, in the order they happened: a spoken question is
 * transcribed into a `pending` user message, and a spoken answer streams like a typed one.
 */
import * as api from './api';
import { WidgetError, type Citation, type Rating, type Session } from './api';
import type { SessionStore, WidgetConfig } from './types';

type Api = Pick<typeof api, 'chat' | 'createSession' | 'fetchHistory' | 'rate'>;

/**
 * `pending`: a spoken question not yet transcribed. `failed`: nothing was answered; the question
 * stays here (a view puts it back into the composer) until the next one is sent.
 */
export type UserMessage = { id: number; kind: 'user'; text: string; status: 'sent' | 'pending' | 'failed'; spoken?: boolean };
/** `messageId` (the server's) makes an answer ratable; `rating` is the visitor's, as last stored. */
export type AnswerMessage = { id: number; kind: 'answer'; text: string; citations: Citation[]; done: boolean; messageId?: string; rating?: Rating };
export type Message =
  | UserMessage
  | AnswerMessage
  | { id: number; kind: 'note'; text: string }
  | { id: number; kind: 'greeting'; kbName: string }
  /** The assistant is working on an answer that has not started yet. */
  | { id: number; kind: 'typing' };

export type Notice = { text: string; retry?: () => void };

export type ConversationState = {
  messages: readonly Message[];
  /** The widget session the conversation started with (null until connected). */
  session: Session | null;
  busy: boolean;
  /** Set when the assistant refuses this page; the conversation is over. */
  unavailable: { message: string } | null;
  notice: Notice | null;
  /** What a screen reader should hear next; a new object each time, so the same words are read again. */
  announcement: { text: string } | null;
};

type Listener = (state: ConversationState, previous: ConversationState) => void;
type Part = { delta: string } | { text: string };
type WithoutId<M> = M extends unknown ? Omit<M, 'id'> : never;

export type Conversation = ReturnType<typeof createConversation>;

function describeError(err: unknown): string {
  if (err instanceof WidgetError) {
    if (err.kind === 'rate_limited') {
      const wait = err.retryAfter > 0 ? `${err.retryAfter} second${err.retryAfter === 1 ? '' : 's'}` : 'a moment';
      return `You're sending messages too quickly. Please wait ${wait} and try again.`;
    }
    if (err.kind === 'network') return "Can't reach the assistant right now. Check your connection and try again.";
    if (err.kind === 'invalid') return err.message;
  }
  return 'Something went wrong while answering. Please try again.';
}

const refusal = (err: unknown) => err instanceof WidgetError && (err.kind === 'refused' || err.kind === 'not_found');

export function createConversation(config: WidgetConfig, sessions: SessionStore, client: Api = api) {
  let state: ConversationState = { messages: [], session: null, busy: false, unavailable: null, notice: null, announcement: null };
  const listeners: Listener[] = [];
  let nextId = 1;
  let session: Session | null = null;
  let sessionLoad: Promise<Session> | null = null;
  let inflight: AbortController | null = null;
  // The spoken turn in progress: its question, its typing indicator, its answer and that answer's sources.
  let voiceUser: number | null = null;
  let voiceTyping: number | null = null;
  let voiceAnswer: number | null = null;
  let voiceCitations: Citation[] = [];
  /** The last spoken answer, finished before its citations arrived (they are attached then). */
  let lastSpoken: { id: number; cited: boolean } | null = null;

  function set(patch: Partial<ConversationState>) {
    const previous = state;
    state = { ...state, ...patch };
    for (const listener of listeners) listener(state, previous);
  }

  function add(message: WithoutId<Message>): number {
    const id = nextId++;
    set({ messages: [...state.messages, { ...message, id } as Message] });
    return id;
  }

  function find(id: number | null) {
    return state.messages.find((m) => m.id === id);
  }

  function update<M extends Message>(id: number | null, change: (m: M) => Partial<M>) {
    if (find(id)) set({ messages: state.messages.map((m) => (m.id === id ? ({ ...m, ...change(m as M) } as Message) : m)) });
  }

  function remove(id: number | null) {
    if (find(id)) set({ messages: state.messages.filter((m) => m.id !== id) });
  }

  const announce = (text: string) => set({ announcement: { text } });
  const notify = (text: string, retry?: () => void) => set({ notice: { text, retry } });
  const clearNotice = () => state.notice && set({ notice: null });
  const newAnswer = () => add({ kind: 'answer', text: '', citations: [], done: false });
  const finish = (id: number | null, text: string, citations: Citation[], messageId?: string) =>
    update<AnswerMessage>(id, () => ({ text, citations, done: true, messageId }));

  function getSession(): Promise<Session> {
    if (session && Date.now() < session.renewAt) return Promise.resolve(session);
    sessionLoad ??= client
      .createSession(config)
      .then((s) => (session = s))
      .finally(() => (sessionLoad = null));
    return sessionLoad;
  }

  /** `why` is for the site owner's console; `message` is what the visitor reads. */
  function refuse(message: string, why: string) {
    console.error(`[Groundwork] The assistant refused this page: ${why}`);
    set({ messages: [], unavailable: { message }, notice: null });
  }

  /** The assistant cannot be used from this page (unknown KB, origin not allowed, widget off). */
  function refuseFor(err: WidgetError) {
    refuse(
      err.kind === 'not_found'
        ? "This assistant isn't available. The site's chat setup may need to be checked."
        : err.message || "This website isn't allowed to use this assistant.",
      err.message,
    );
  }

  async function start() {
    const connecting = add({ kind: 'note', text: 'Connecting…' });
    try {
      const s = await getSession();
      remove(connecting);
      set({ session: s });
      const stored = sessions.get();
      if (stored) {
        try {
          for (const m of await client.fetchHistory(config, s, stored)) {
            if (m.role === 'user') add({ kind: 'user', text: m.content, status: 'sent' });
            else add({ kind: 'answer', text: m.content, citations: m.citations, done: true, messageId: m.message_id, rating: m.feedback ?? null });
          }
        } catch (err) {
          if (err instanceof WidgetError && err.kind === 'not_found') sessions.clear();
          else notify("Your earlier conversation couldn't be loaded.");
        }
      }
      if (state.messages.length === 0) add({ kind: 'greeting', kbName: s.kb.name });
    } catch (err) {
      remove(connecting);
      if (refusal(err)) refuseFor(err as WidgetError);
      else
        notify(describeError(err), () => {
          clearNotice();
          void start();
        });
    }
  }

  type Handlers = { onSession(id: string): void; onDelta(text: string): void; onDone(answer: string, citations: Citation[], id?: string): void };

  async function stream(message: string, signal: AbortSignal, on: Handlers, retried = false): Promise<void> {
    const s = await getSession();
    const sessionId = sessions.get();
    try {
      for await (const ev of client.chat(config, s, { message, ...(sessionId ? { session_id: sessionId } : {}) }, signal)) {
        const data = JSON.parse(ev.data);
        if (ev.event === 'session') on.onSession(data.session_id);
        else if (ev.event === 'delta') on.onDelta(data.text);
        else if (ev.event === 'done') return on.onDone(data.answer, data.citations ?? [], data.message_id);
        else if (ev.event === 'error') throw new WidgetError('server', data.error?.message ?? 'error');
      }
      throw new WidgetError('network', 'The answer was interrupted');
    } catch (err) {
      if (retried || signal.aborted || !(err instanceof WidgetError)) throw err;
      if (err.kind === 'expired') {
        session = null; // the token expired or the key rotated: one fresh session, one retry
        return stream(message, signal, on, true);
      }
      if (err.kind === 'not_found' && sessionId) {
        sessions.clear(); // the stored conversation is gone on the server
        add({ kind: 'note', text: 'Your earlier conversation has expired; this is a new one.' });
        return stream(message, signal, on, true);
      }
      throw err;
    }
  }

  /** Sends a typed question and streams its answer into the conversation. */
  async function ask(text: string) {
    if (state.busy || state.unavailable) return;
    const controller = (inflight = new AbortController());
    set({ busy: true, notice: null, messages: state.messages.filter((m) => m.kind !== 'user' || m.status !== 'failed') });
    const question = add({ kind: 'user', text, status: 'sent' });
    const typing = add({ kind: 'typing' });
    let answer: number | null = null;
    // Events of a request the visitor replaced (a new conversation) must not land in the new one.
    const live = () => !controller.signal.aborted;
    try {
      await stream(text, controller.signal, {
        onSession: (id) => live() && sessions.set(id),
        onDelta: (delta) => {
          if (!live()) return;
          remove(typing);
          update<AnswerMessage>((answer ??= newAnswer()), (m) => ({ text: m.text + delta }));
        },
        onDone: (full, citations, id) => {
          if (!live()) return;
          remove(typing);
          finish((answer ??= newAnswer()), full, citations, id);
          announce(`Assistant: ${full}`);
        },
      });
    } catch (err) {
      remove(typing);
      if (controller.signal.aborted) return;
      if (refusal(err)) return refuseFor(err as WidgetError);
      // Nothing was answered: the question is kept so it can be sent again.
      if (answer === null) update<UserMessage>(question, () => ({ status: 'failed' }));
      notify(describeError(err));
    } finally {
      if (inflight === controller) {
        inflight = null;
        set({ busy: false });
      }
    }
  }

  /** The visitor's rating of an answer (null clears it); a comment says what was missing. */
  async function rate(id: number, rating: Rating, comment?: string) {
    const answer = find(id);
    const sessionId = sessions.get();
    if (answer?.kind !== 'answer' || !answer.messageId || !sessionId) return;
    try {
      await client.rate(config, await getSession(), { session_id: sessionId, message_id: answer.messageId, rating, ...(comment ? { comment } : {}) });
      update<AnswerMessage>(id, () => ({ rating }));
      announce(rating ? 'Thanks for your feedback' : '');
    } catch {
      announce('Your feedback could not be sent');
    }
  }

  function resetVoiceTurn() {
    voiceUser = voiceTyping = voiceAnswer = lastSpoken = null;
    voiceCitations = [];
  }

  /** The spoken question of this turn, as a pending message until its first words arrive. */
  function voiceQuestion(): number {
    return (voiceUser ??= add({ kind: 'user', text: '', status: 'pending', spoken: true }));
  }

  function dropUntranscribed() {
    const user = find(voiceUser);
    if (user?.kind === 'user' && user.status === 'pending') remove(voiceUser); // nothing was transcribed of the question
    voiceUser = null;
  }

  function clearVoiceTyping() {
    remove(voiceTyping);
    voiceTyping = null;
  }

  return {
    get state() {
      return state;
    },
    subscribe(listener: Listener) {
      listeners.push(listener);
    },
    start,
    ask,
    rate,
    getSession,
    /** The token was refused: the next request gets a fresh one. */
    dropSession() {
      session = null;
    },
    sessionId: () => sessions.get(),
    keepSessionId: (id: string) => sessions.set(id),
    notify,
    clearNotice,
    refuse,
    /** Stops any answer in flight and forgets the conversation, here and in storage. */
    reset() {
      inflight?.abort();
      inflight = null;
      resetVoiceTurn();
      set({ busy: false });
      sessions.clear();
      if (state.unavailable) return;
      set({ messages: [], notice: null });
      if (session) add({ kind: 'greeting', kbName: session.kb.name });
      announce('Started a new conversation.');
    },
    voiceThinking() {
      voiceQuestion();
      voiceTyping ??= add({ kind: 'typing' });
    },
    voiceListening: clearVoiceTyping,
    voiceTranscript(role: 'user' | 'assistant', part: Part) {
      if (role === 'user') {
        update<UserMessage>(voiceQuestion(), (m) => ({
          text: 'delta' in part ? (m.status === 'pending' ? '' : m.text) + part.delta : part.text,
          status: 'sent',
        }));
        if ('text' in part) voiceUser = null;
        return;
      }
      clearVoiceTyping();
      dropUntranscribed();
      if (voiceAnswer === null) {
        voiceAnswer = newAnswer();
        lastSpoken = null;
      }
      if ('delta' in part) return update<AnswerMessage>(voiceAnswer, (m) => ({ text: m.text + part.delta }));
      lastSpoken = { id: voiceAnswer, cited: voiceCitations.length > 0 };
      finish(voiceAnswer, part.text, voiceCitations);
      announce(`Assistant: ${part.text}`);
      voiceAnswer = null;
      voiceCitations = [];
    },
    voiceCitations(citations: Citation[]) {
      if (lastSpoken && !lastSpoken.cited && voiceAnswer === null) {
        // The answer's transcript was complete before its sources arrived.
        update<AnswerMessage>(lastSpoken.id, () => ({ citations }));
        lastSpoken.cited = true;
        return;
      }
      voiceCitations = citations;
    },
    /** The voice session is over: what it left half done is finished or dropped. */
    voiceEnded() {
      clearVoiceTyping();
      dropUntranscribed();
      const open = find(voiceAnswer);
      if (open?.kind === 'answer') finish(voiceAnswer, open.text, voiceCitations);
      voiceAnswer = null;
      voiceCitations = [];
    },
  };
}
