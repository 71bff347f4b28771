/**
 * widget-panel.js: the chat panel, loaded by the loader on first open. Starts a widget session,
 * restores the stored conversation, streams answers token by token and shows their sources. The
 * DOM is built with createElement/textContent only (no HTML strings: server text can never become
 * markup, and pages enforcing Trusted Types work), and only http(s) source links are made.
 *
 * Accessibility: a labelled non-modal dialog; focus moves to the question field on open (the loader
 * returns it on close, and Escape closes); the conversation is a focusable, scrollable region; each
 * finished answer is announced once through a polite status region (not token by token); errors
 * are role=alert.
 *
 * Voice (data-voice="true", and the session says voice is available): the microphone button loads
 * widget-voice.js on first use; spoken turns appear as chat bubbles like typed ones, in the same
 * conversation, and the voice state (connecting, listening, thinking, speaking) is shown and announced.
 */
import { chat, createSession, fetchHistory, rate, WidgetError, type Citation, type HistoryMessage, type Rating, type Session } from './api';
import { adoptStyles } from './dom';
import { icon, ICON_ALERT, ICON_CHAT, ICON_CLOSE, ICON_MIC, ICON_NEW, ICON_SEND } from './icons';
import { PANEL_CSS } from './panel-styles';
import type { PanelController, PanelHost } from './types';
import { voiceMessage, voiceRefusalClosesChat, VOICE_STATE_TEXT, voiceRefusedForGood } from './voice-messages';
import type { VoiceEnd, VoiceHandle, VoiceModule, VoiceState } from './voice-types';

/** The server's limit for widget messages. */
const MAX_CHARS = 1000;
const SHOW_COUNT_FROM = 800;

type Child = Node | string | null | undefined | false;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, ...children: Child[]) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

function safeUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

function prettyUrl(url: string): string {
  const u = new URL(url);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const text = `${u.host}${path}`;
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Answer text with its [n] source markers as small badges. */
function renderAnswer(target: HTMLElement, answer: string) {
  target.textContent = '';
  for (const part of answer.split(/(\[\d{1,2}\])/)) {
    const marker = /^\[(\d{1,2})\]$/.exec(part);
    target.append(marker ? h('span', { class: 'ref' }, marker[1]) : part);
  }
}

export function renderSources(citations: Citation[]): HTMLElement {
  const list = h('ol');
  for (const c of citations) {
    const url = safeUrl(c.url);
    const src = h('span', { class: 'src' });
    if (url) {
      src.append(h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, c.heading || prettyUrl(url)));
      if (c.heading) src.append(' ', h('span', { class: 'meta' }, `· ${prettyUrl(url)}`));
    } else {
      const meta = [c.page ? `page ${c.page}` : null, c.heading].filter(Boolean).join(' · ');
      src.append(h('span', { class: 'file' }, c.filename), meta && h('span', { class: 'meta' }, ` · ${meta}`));
    }
    list.append(h('li', { title: c.snippet }, h('span', { class: 'num' }, `${c.marker}.`), src));
  }
  // A refused answer's passages are what came closest, not what the answer says: labelled as such.
  const closest = citations.every((c) => c.used === false);
  return closest
    ? h('div', { class: 'sources closest' }, h('div', { class: 'sources-title' }, 'Closest passages (not used in the answer)'), list)
    : h('div', { class: 'sources' }, h('div', { class: 'sources-title' }, 'Sources'), list);
}

function describe(err: unknown): string {
  if (!(err instanceof WidgetError)) return 'Something went wrong while answering. Please try again.';
  switch (err.kind) {
    case 'rate_limited': {
      const wait = err.retryAfter > 0 ? `${err.retryAfter} second${err.retryAfter === 1 ? '' : 's'}` : 'a moment';
      return `You're sending messages too quickly. Please wait ${wait} and try again.`;
    }
    case 'network':
      return "Can't reach the assistant right now. Check your connection and try again.";
    case 'invalid':
      return err.message;
    default:
      return 'Something went wrong while answering. Please try again.';
  }
}

export function mountPanel(host: PanelHost): PanelController {
  const { config, store } = host;
  adoptStyles(host.shadow, PANEL_CSS);

  const title = h('strong', { id: 'gw-title' }, 'Chat');
  const newButton = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'New conversation', title: 'New conversation' }, icon(ICON_NEW));
  const closeButton = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close chat', title: 'Close' }, icon(ICON_CLOSE));
  const head = h(
    'div',
    { class: 'head' },
    h('span', { class: 'avatar', 'aria-hidden': 'true' }, icon(ICON_CHAT)),
    h('div', { class: 'title' }, title, h('span', {}, 'AI assistant')),
    newButton,
    closeButton,
  );
  const log = h('div', { class: 'log', role: 'region', 'aria-label': 'Conversation', tabindex: '0' });
  const notice = h('div', { class: 'notice', role: 'alert', hidden: true });
  const input = h('textarea', {
    class: 'input',
    rows: '1',
    maxlength: String(MAX_CHARS),
    placeholder: 'Ask a question…',
    'aria-label': 'Your question',
    enterkeyhint: 'send',
  });
  const mic = h(
    'button',
    { type: 'button', class: 'icon-btn mic', 'aria-label': 'Talk to the assistant', 'aria-pressed': 'false', title: 'Voice', hidden: true },
    icon(ICON_MIC),
  );
  const voiceText = h('span', { class: 'voice-state' });
  // Always in the tree (a live region that appears together with its text is often not read out).
  const voiceLive = h('div', { class: 'sr-only voice-live', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const voiceStop = h('button', { type: 'button', class: 'voice-stop' }, 'End voice');
  const voiceBar = h('div', { class: 'voice', hidden: true }, h('span', { class: 'voice-dot', 'aria-hidden': 'true' }), voiceText, voiceStop);
  const send = h('button', { type: 'submit', class: 'send', 'aria-label': 'Send' }, icon(ICON_SEND));
  const form = h('form', { class: 'composer' }, input, mic, send);
  const count = h('span', { class: 'count', hidden: true });
  const foot = h('div', { class: 'foot' }, h('span', {}, 'Answers are generated from this site’s documents.'), count);
  const status = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  const panel = h(
    'section',
    { class: 'panel', id: 'gw-panel', role: 'dialog', 'aria-labelledby': 'gw-title', hidden: true },
    head,
    log,
    notice,
    voiceBar,
    form,
    foot,
    status,
    voiceLive,
  );
  host.container.append(panel);

  let session: Session | null = null;
  let sessionLoad: Promise<Session> | null = null;
  let started = false;
  let unavailable = false;
  let busy = false;
  let inflight: AbortController | null = null;
  let atBottom = true;

  log.addEventListener('scroll', () => {
    atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 60;
  });
  const stick = () => {
    if (atBottom) log.scrollTop = log.scrollHeight;
  };

  function getSession(): Promise<Session> {
    if (session && Date.now() < session.renewAt) return Promise.resolve(session);
    sessionLoad ??= createSession(config)
      .then((s) => (session = s))
      .finally(() => (sessionLoad = null));
    return sessionLoad;
  }

  function addNote(text: string) {
    const note = h('div', { class: 'msg note' }, text);
    log.append(note);
    stick();
    return note;
  }

  function addGreeting(kbName: string) {
    log.append(h('div', { class: 'msg greeting' }, `Hi! Ask me anything about ${kbName}. My answers come from its documents, with sources.`));
  }

  function addUser(text: string) {
    const el = h('div', { class: 'msg user' }, text);
    log.append(el);
    atBottom = true;
    stick();
    return el;
  }

  /** Thumbs up / down under an answer: toggle buttons (aria-pressed); "not helpful" offers a comment. */
  function addRating(el: HTMLElement, id: string, initial: Rating = null) {
    let current = initial;
    const send = async (rating: Rating, comment?: string) => {
      const sessionId = store.get();
      if (!sessionId) return;
      try {
        await rate(config, await getSession(), { session_id: sessionId, message_id: id, rating, ...(comment ? { comment } : {}) });
        current = rating;
        status.textContent = rating ? 'Thanks for your feedback' : '';
      } catch {
        status.textContent = 'Your feedback could not be sent';
      }
      sync();
    };
    const btn = (r: 'up' | 'down', label: string, icon: string) => {
      const b = h('button', { type: 'button', class: 'rate-btn', 'aria-label': label }, icon);
      b.onclick = () => void send(current === r ? null : r);
      return b;
    };
    const up = btn('up', 'Helpful', '👍');
    const down = btn('down', 'Not helpful', '👎');
    const note = h('input', { class: 'rate-note', 'aria-label': 'What was missing? (optional)', placeholder: 'What was missing? (optional)', maxlength: '500' });
    note.onkeydown = (e) => e.key === 'Enter' && note.value.trim() && void send('down', note.value.trim()).then(() => note.remove());
    const bar = h('div', { class: 'rate', role: 'group', 'aria-label': 'Was this answer helpful?' }, up, down);
    const sync = () => {
      up.setAttribute('aria-pressed', String(current === 'up'));
      down.setAttribute('aria-pressed', String(current === 'down'));
      if (current === 'down' && !initial) bar.append(note);
      else note.remove();
    };
    sync();
    el.append(bar);
  }

  function addBot(answer?: string, citations?: Citation[]) {
    const text = h('div', { class: 'text' });
    const el = h('div', { class: 'msg bot' }, text);
    log.append(el);
    const streamed = document.createTextNode('');
    text.append(streamed);
    const bot = {
      text: () => text.textContent ?? '',
      append(delta: string) {
        streamed.appendData(delta);
        stick();
      },
      finish(full: string, cited: Citation[], id?: string, rating?: Rating) {
        renderAnswer(text, full);
        if (cited.length > 0) el.append(renderSources(cited));
        if (id) addRating(el, id, rating);
        stick();
      },
    };
    return bot;
  }

  function addTyping() {
    const el = h('div', { class: 'msg bot typing', 'aria-hidden': 'true' }, h('i'), h('i'), h('i'));
    log.append(el);
    stick();
    return el;
  }

  function showNotice(text: string, retry?: () => void) {
    notice.textContent = '';
    notice.append(icon(ICON_ALERT), h('span', {}, text));
    if (retry) {
      const button = h('button', { type: 'button', class: 'retry' }, 'Retry');
      button.addEventListener('click', retry);
      notice.lastElementChild!.append(button);
    }
    notice.hidden = false;
  }

  function hideNotice() {
    notice.hidden = true;
    notice.textContent = '';
  }

  /** The assistant cannot be used from this page (unknown KB, origin not allowed, widget off). */
  function showRefusal(err: WidgetError) {
    const message =
      err.kind === 'not_found'
        ? "This assistant isn't available. The site's chat setup may need to be checked."
        : err.message || "This website isn't allowed to use this assistant.";
    showUnavailable(message, err.message);
  }

  /** `why` is for the site owner's console; `message` is what the visitor reads. */
  function showUnavailable(message: string, why: string) {
    unavailable = true;
    console.error(`[Groundwork] The assistant refused this page: ${why}`);
    log.textContent = '';
    log.append(h('div', { class: 'refusal' }, icon(ICON_ALERT), h('strong', {}, 'Chat unavailable'), h('span', { class: 'reason' }, message)));
    form.hidden = true;
    foot.hidden = true;
    newButton.hidden = true;
    hideNotice();
    status.textContent = `Chat unavailable. ${message}`;
    if (!panel.hidden) closeButton.focus();
  }

  function renderHistory(messages: HistoryMessage[]) {
    for (const m of messages) {
      if (m.role === 'user') addUser(m.content);
      else addBot().finish(m.content, m.citations, m.message_id, m.feedback);
    }
  }

  async function start() {
    const connecting = addNote('Connecting…');
    try {
      const s = await getSession();
      connecting.remove();
      title.textContent = s.kb.name;
      if (config.voice) {
        if (s.voice.available) mic.hidden = false;
        else
          console.info(
            `[Groundwork] data-voice is set, but the microphone is hidden: voice is not available for this assistant (${s.voice.reason ?? 'it needs the Starter plan or above and Voice switched on in Settings'}).`,
          );
      }
      const stored = store.get();
      if (stored) {
        try {
          renderHistory(await fetchHistory(config, s, stored));
        } catch (err) {
          if (err instanceof WidgetError && err.kind === 'not_found') store.clear();
          else showNotice("Your earlier conversation couldn't be loaded.");
        }
      }
      if (!log.querySelector('.msg')) addGreeting(s.kb.name);
      atBottom = true;
      stick();
    } catch (err) {
      connecting.remove();
      if (err instanceof WidgetError && (err.kind === 'refused' || err.kind === 'not_found')) showRefusal(err);
      else
        showNotice(describe(err), () => {
          hideNotice();
          void start();
        });
    }
  }

  type Handlers = { onSession(id: string): void; onDelta(text: string): void; onDone(answer: string, citations: Citation[], id?: string): void };

  async function ask(message: string, signal: AbortSignal, on: Handlers, retried = false): Promise<void> {
    const s = await getSession();
    const sessionId = store.get();
    try {
      for await (const ev of chat(config, s, { message, ...(sessionId ? { session_id: sessionId } : {}) }, signal)) {
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
        return ask(message, signal, on, true);
      }
      if (err.kind === 'not_found' && sessionId) {
        store.clear(); // the stored conversation is gone on the server
        addNote('Your earlier conversation has expired; this is a new one.');
        return ask(message, signal, on, true);
      }
      throw err;
    }
  }

  function setBusy(value: boolean) {
    busy = value;
    send.setAttribute('aria-disabled', String(value));
    log.setAttribute('aria-busy', String(value));
  }

  async function submit() {
    const text = input.value.trim();
    if (!text || busy || unavailable) return;
    if (text.length > MAX_CHARS) {
      showNotice(`Please keep your question under ${MAX_CHARS} characters.`);
      return;
    }
    hideNotice();
    setBusy(true);
    const controller = (inflight = new AbortController());
    const userMessage = addUser(text);
    input.value = '';
    resize();
    const typing = addTyping();
    let bot: ReturnType<typeof addBot> | null = null;
    try {
      await ask(text, controller.signal, {
        onSession: (id) => {
          if (!controller.signal.aborted) store.set(id);
        },
        onDelta: (delta) => {
          typing.remove();
          (bot ??= addBot()).append(delta);
        },
        onDone: (answer, citations, id) => {
          typing.remove();
          (bot ??= addBot()).finish(answer, citations, id);
          status.textContent = '';
          status.textContent = `Assistant: ${answer}`;
        },
      });
    } catch (err) {
      typing.remove();
      if (controller.signal.aborted) return;
      if (err instanceof WidgetError && (err.kind === 'refused' || err.kind === 'not_found')) {
        showRefusal(err);
        return;
      }
      if (!bot) {
        // Nothing was answered: take the question back so it can be sent again.
        userMessage.remove();
        if (!input.value) input.value = text;
        resize();
      }
      showNotice(describe(err));
    } finally {
      if (inflight === controller) {
        inflight = null;
        setBusy(false);
      }
    }
  }

  function resize() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 132)}px`;
    const length = input.value.length;
    count.hidden = length < SHOW_COUNT_FROM;
    count.textContent = `${length}/${MAX_CHARS}`;
    count.classList.toggle('over', length >= MAX_CHARS);
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void submit();
    }
  });
  input.addEventListener('input', resize);
  closeButton.addEventListener('click', () => host.requestClose());
  newButton.addEventListener('click', () => controller.newConversation());

  // ---- voice ----------------------------------------------------------------------------------
  let voice: VoiceHandle | null = null;
  let voiceLoad: Promise<VoiceModule> | null = null;
  let voiceUser: HTMLElement | null = null;
  let voiceBot: ReturnType<typeof addBot> | null = null;
  let voiceTyping: HTMLElement | null = null;
  let voiceCitations: Citation[] = [];
  /** The last spoken answer, finished before its citations arrived (they are attached then). */
  let lastSpoken: { bot: ReturnType<typeof addBot>; text: string; cited: boolean } | null = null;
  let hiddenTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped when the conversation is replaced: late events of an earlier voice session are ignored. */
  let voiceGeneration = 0;

  function loadVoice(): Promise<VoiceModule> {
    voiceLoad ??= (import(new URL(__GW_VOICE_FILE__, `${config.base}embed/`).href) as Promise<VoiceModule>).catch((err) => {
      voiceLoad = null;
      throw err;
    });
    return voiceLoad;
  }

  function setVoiceState(state: VoiceState | null) {
    voiceBar.hidden = state === null;
    if (state === null) {
      voiceBar.removeAttribute('data-state');
      voiceText.textContent = voiceLive.textContent = '';
      return;
    }
    voiceBar.setAttribute('data-state', state);
    voiceText.textContent = VOICE_STATE_TEXT[state];
    voiceLive.textContent = VOICE_STATE_TEXT[state];
  }

  function setMicLive(live: boolean) {
    mic.classList.toggle('live', live);
    voiceBar.classList.toggle('live', live);
  }

  function setVoiceActive(active: boolean) {
    mic.setAttribute('aria-pressed', String(active));
    mic.setAttribute('aria-label', active ? 'Stop talking' : 'Talk to the assistant');
    mic.title = active ? 'Stop voice' : 'Voice';
  }

  function clearVoiceTyping() {
    voiceTyping?.remove();
    voiceTyping = null;
  }

  function userBubble(): HTMLElement {
    if (!voiceUser) {
      voiceUser = addUser('');
      voiceUser.classList.add('voice-turn', 'pending');
    }
    return voiceUser;
  }

  function onTranscript(role: 'user' | 'assistant', part: { delta: string } | { text: string }) {
    if (role === 'user') {
      const el = userBubble();
      if ('delta' in part) el.textContent = (el.classList.contains('pending') ? '' : el.textContent) + part.delta;
      else el.textContent = part.text;
      el.classList.remove('pending');
      if ('text' in part) voiceUser = null;
      stick();
      return;
    }
    clearVoiceTyping();
    if (voiceUser?.classList.contains('pending')) voiceUser.remove(); // nothing was transcribed of the question
    voiceUser = null;
    if (!voiceBot) {
      voiceBot = addBot();
      lastSpoken = null;
    }
    if ('delta' in part) return voiceBot.append(part.delta);
    const cited = voiceCitations.length > 0;
    voiceBot.finish(part.text, voiceCitations);
    lastSpoken = { bot: voiceBot, text: part.text, cited };
    status.textContent = `Assistant: ${part.text}`;
    voiceBot = null;
    voiceCitations = [];
  }

  function onCitations(citations: Citation[]) {
    if (lastSpoken && !lastSpoken.cited && !voiceBot) {
      // The answer's transcript was complete before its sources arrived.
      lastSpoken.bot.finish(lastSpoken.text, citations);
      lastSpoken.cited = true;
      return;
    }
    voiceCitations = citations;
  }

  function onVoiceEnd(reason: VoiceEnd) {
    voice = null;
    clearTimeout(hiddenTimer);
    clearVoiceTyping();
    if (voiceUser?.classList.contains('pending')) voiceUser.remove();
    voiceUser = null;
    if (voiceBot) voiceBot.finish(voiceBot.text(), voiceCitations);
    voiceBot = null;
    voiceCitations = [];
    setMicLive(false);
    setVoiceActive(false);
    setVoiceState(null);
    voiceBar.removeAttribute('data-played-ms');
    if (reason.kind === 'stopped') {
      voiceLive.textContent = 'Voice conversation ended.';
      return;
    }
    if (voiceRefusalClosesChat(reason.code)) {
      showUnavailable(voiceMessage(reason.code), `${reason.code}${reason.message ? ` (${reason.message})` : ''}`);
      return;
    }
    if (reason.message || !reason.code.startsWith('microphone')) {
      console.warn(`[Groundwork] The voice conversation ended: ${reason.code}${reason.message ? ` (${reason.message})` : ''}`);
    }
    if (reason.code === 'invalid_token') session = null; // a fresh token on the next try
    if (voiceRefusedForGood(reason.code)) {
      mic.hidden = true;
      if (!panel.hidden) input.focus();
    }
    showNotice(voiceMessage(reason.code));
  }

  async function startVoice() {
    if (voice || unavailable) return;
    hideNotice();
    setVoiceActive(true);
    setVoiceState('connecting');
    let starting: VoiceHandle | null = null;
    const pending: VoiceHandle = { stop: () => starting?.stop() ?? onVoiceEnd({ kind: 'stopped' }) };
    voice = pending;
    let mod: VoiceModule;
    let s: Session;
    try {
      [mod, s] = await Promise.all([loadVoice(), getSession()]);
    } catch (err) {
      if (voice !== pending) return; // stopped meanwhile
      console.error('[Groundwork] Voice could not be started', err);
      onVoiceEnd({ kind: 'error', code: err instanceof WidgetError ? 'session_error' : 'load_error' });
      return;
    }
    if (voice !== pending) return;
    const generation = voiceGeneration;
    const live = <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => {
      if (generation === voiceGeneration) fn(...args);
    };
    starting = mod.startVoice(
      { base: config.base, workletFile: __GW_AUDIO_FILE__, token: s.token, sessionId: store.get() },
      {
        onState: live((state: VoiceState) => {
          if (state === 'thinking') {
            if (!voiceUser) userBubble();
            voiceTyping ??= addTyping();
          } else if (state === 'listening') clearVoiceTyping();
          setVoiceState(state);
        }),
        onReady: live((id: string) => store.set(id)),
        onMicrophone: live(setMicLive),
        onTranscript: live(onTranscript),
        onCitations: live(onCitations),
        onPlayback: live((_itemMs: number, totalMs: number) => voiceBar.setAttribute('data-played-ms', String(totalMs))),
        onEnd: live(onVoiceEnd),
      },
    );
    voice = starting;
  }

  function stopVoice(reason?: string) {
    if (!voice) return;
    voice.stop();
    if (reason) showNotice(reason);
  }

  mic.addEventListener('click', () => (voice ? stopVoice() : void startVoice()));
  voiceStop.addEventListener('click', () => {
    stopVoice();
    if (!panel.hidden) mic.focus();
  });
  document.addEventListener('visibilitychange', () => {
    clearTimeout(hiddenTimer);
    if (document.visibilityState === 'hidden' && voice) {
      hiddenTimer = setTimeout(() => stopVoice(voiceMessage('background')), config.voiceBackgroundSeconds * 1000);
    }
  });

  const controller: PanelController = {
    show() {
      panel.hidden = false;
      if (!started) {
        started = true;
        void start();
      }
      (unavailable ? closeButton : input).focus();
      stick();
    },
    hide() {
      stopVoice();
      panel.hidden = true;
    },
    newConversation() {
      if (voice) {
        stopVoice();
        onVoiceEnd({ kind: 'stopped' });
        voiceGeneration++;
      }
      inflight?.abort();
      inflight = null;
      setBusy(false);
      store.clear();
      if (unavailable) return;
      hideNotice();
      log.textContent = '';
      if (session) addGreeting(session.kb.name);
      status.textContent = 'Started a new conversation.';
      if (!panel.hidden) input.focus();
    },
  };
  return controller;
}
