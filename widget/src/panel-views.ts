/**
 * The chat panel's views: the dialog with its header, the conversation log (messages, sources,
 * ratings), the error notice and the composer, rendered from the conversation store. The DOM is
 * built with createElement/textContent only (no HTML strings: server text can never become markup,
 * and pages enforcing Trusted Types work), and only http(s) source links are made.
 *
 * Accessibility: a labelled non-modal dialog; focus moves to the question field on open (the loader
 * returns it on close, and Escape closes); the conversation is a focusable, scrollable region; each
 * finished answer is announced once through a polite status region (not token by token); errors
 * are role=alert.
 */
import type { Citation } from './api';
import type { AnswerMessage, Conversation, Message, Notice, UserMessage } from './conversation-store';
import { adoptStyles, h } from './dom';
import { icon, ICON_ALERT, ICON_CHAT, ICON_CLOSE, ICON_NEW, ICON_SEND, ICON_THUMB_DOWN, ICON_THUMB_UP } from './icons';
import { PANEL_CSS } from './panel-styles';
import type { PanelHost } from './types';

/** The server's limit for widget messages. */
const MAX_CHARS = 1000;
const SHOW_COUNT_FROM = 800;

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
    } else if (c.source_type === 'annotation') {
      src.append(h('span', { class: 'file' }, c.filename));
      if (c.title) src.append(h('span', { class: 'meta' }, ` · ${c.title}`));
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

/** Thumbs up / down under an answer: toggle buttons (aria-pressed); "not helpful" offers a comment. */
function ratingBar(conversation: Conversation, answer: AnswerMessage) {
  // A rating restored with the conversation was commented on then, if at all.
  const initial = answer.rating;
  let current = answer.rating ?? null;
  // The icon is aria-hidden; the button's label is its name for assistive technology and its tooltip.
  const btn = (r: 'up' | 'down', label: string, glyph: Parameters<typeof icon>[0]) => {
    const b = h('button', { type: 'button', class: 'rate-btn', 'aria-label': label, title: label }, icon(glyph));
    b.onclick = () => void conversation.rate(answer.id, current === r ? null : r);
    return b;
  };
  const up = btn('up', 'Helpful', ICON_THUMB_UP);
  const down = btn('down', 'Not helpful', ICON_THUMB_DOWN);
  const note = h('input', { class: 'rate-note', 'aria-label': 'What was missing? (optional)', placeholder: 'What was missing? (optional)', maxlength: '500' });
  note.onkeydown = (e) => e.key === 'Enter' && note.value.trim() && void conversation.rate(answer.id, 'down', note.value.trim()).then(() => note.remove());
  const bar = h('div', { class: 'rate', role: 'group', 'aria-label': 'Was this answer helpful?' }, up, down);
  const sync = (rating: AnswerMessage['rating']) => {
    current = rating ?? null;
    up.setAttribute('aria-pressed', String(current === 'up'));
    down.setAttribute('aria-pressed', String(current === 'down'));
    if (current === 'down' && !initial) bar.append(note);
    else note.remove();
  };
  sync(current);
  return { bar, sync };
}

/** A message on screen: its element, and for answers the parts that change as it streams and is rated. */
type Shown = { message: Message; el: HTMLElement; text?: HTMLElement; streamed?: Text; sources?: HTMLElement; rating?: ReturnType<typeof ratingBar> };

const userClass = (m: UserMessage) => `msg user${m.spoken ? ' voice-turn' : ''}${m.status === 'pending' ? ' pending' : ''}`;

export type PanelView = ReturnType<typeof mountViews>;

export function mountViews(host: PanelHost, conversation: Conversation) {
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
  const send = h('button', { type: 'submit', class: 'send', 'aria-label': 'Send' }, icon(ICON_SEND));
  const form = h('form', { class: 'composer' }, input, send);
  const count = h('span', { class: 'count', hidden: true });
  const foot = h('div', { class: 'foot' }, h('span', {}, 'Answers are generated from this site’s documents.'), count);
  const status = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  const panel = h('section', { class: 'panel', id: 'gw-panel', role: 'dialog', 'aria-labelledby': 'gw-title', hidden: true }, head, log, notice, form, foot, status);
  host.container.append(panel);

  let atBottom = true;
  log.addEventListener('scroll', () => {
    atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 60;
  });
  const stick = () => {
    if (atBottom) log.scrollTop = log.scrollHeight;
  };

  function resize() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 132)}px`;
    const length = input.value.length;
    count.hidden = length < SHOW_COUNT_FROM;
    count.textContent = `${length}/${MAX_CHARS}`;
    count.classList.toggle('over', length >= MAX_CHARS);
  }

  function create(m: Message): Shown {
    if (m.kind !== 'answer') {
      const el =
        m.kind === 'user'
          ? h('div', { class: userClass(m) }, m.text)
          : m.kind === 'note'
            ? h('div', { class: 'msg note' }, m.text)
            : m.kind === 'greeting'
              ? h('div', { class: 'msg greeting' }, `Hi! Ask me anything about ${m.kbName}. My answers come from its documents, with sources.`)
              : h('div', { class: 'msg bot typing', 'aria-hidden': 'true' }, h('i'), h('i'), h('i'));
      return { message: m, el };
    }
    const streamed = document.createTextNode('');
    const text = h('div', { class: 'text' }, streamed);
    const shown: Shown = { message: m, el: h('div', { class: 'msg bot' }, text), text, streamed };
    showAnswer(shown, m, null);
    return shown;
  }

  function showAnswer(shown: Shown, m: AnswerMessage, before: AnswerMessage | null) {
    if (!m.done) {
      shown.streamed!.appendData(m.text.slice(before?.text.length ?? 0));
      return;
    }
    const finished = before?.done;
    if (!finished || before.text !== m.text) renderAnswer(shown.text!, m.text);
    if (!finished || before.citations !== m.citations) {
      shown.sources?.remove();
      shown.sources = m.citations.length > 0 ? renderSources(m.citations) : undefined;
      if (shown.sources) shown.el.insertBefore(shown.sources, shown.rating?.bar ?? null);
    }
    if (shown.rating) shown.rating.sync(m.rating);
    else if (m.messageId) shown.el.append((shown.rating = ratingBar(conversation, m)).bar);
  }

  const shown = new Map<number, Shown>();

  function renderMessages(messages: readonly Message[]) {
    const ids = new Set(messages.map((m) => m.id));
    for (const [id, s] of shown) {
      if (ids.has(id)) continue;
      s.el.remove();
      shown.delete(id);
    }
    for (const m of messages) {
      const s = shown.get(m.id);
      if (!s) {
        if (m.kind === 'user' && m.status === 'failed') continue;
        const created = create(m);
        shown.set(m.id, created);
        log.append(created.el);
        if (m.kind === 'user' || m.kind === 'greeting') atBottom = true;
      } else if (s.message !== m) {
        const before = s.message;
        s.message = m;
        if (m.kind === 'answer') showAnswer(s, m, before as AnswerMessage);
        else if (m.kind === 'user' && m.status === 'failed') {
          // Nothing was answered: the question goes back into the composer so it can be sent again.
          s.el.remove();
          shown.delete(m.id);
          if (!input.value) input.value = m.text;
          resize();
        } else if (m.kind === 'user') {
          s.el.className = userClass(m);
          s.el.textContent = m.text;
        }
      }
    }
    stick();
  }

  function renderNotice(n: Notice | null) {
    notice.textContent = '';
    notice.hidden = !n;
    if (!n) return;
    notice.append(icon(ICON_ALERT), h('span', {}, n.text));
    if (n.retry) {
      const button = h('button', { type: 'button', class: 'retry' }, 'Retry');
      button.addEventListener('click', n.retry);
      notice.lastElementChild!.append(button);
    }
  }

  function showUnavailable(message: string) {
    log.textContent = '';
    log.append(h('div', { class: 'refusal' }, icon(ICON_ALERT), h('strong', {}, 'Chat unavailable'), h('span', { class: 'reason' }, message)));
    form.hidden = true;
    foot.hidden = true;
    newButton.hidden = true;
    status.textContent = `Chat unavailable. ${message}`;
    if (!panel.hidden) closeButton.focus();
  }

  conversation.subscribe((state, previous) => {
    if (state.unavailable && !previous.unavailable) showUnavailable(state.unavailable.message);
    if (state.session && state.session !== previous.session) title.textContent = state.session.kb.name;
    if (state.messages !== previous.messages) renderMessages(state.messages);
    if (state.notice !== previous.notice) renderNotice(state.notice);
    if (state.busy !== previous.busy) {
      send.setAttribute('aria-disabled', String(state.busy));
      log.setAttribute('aria-busy', String(state.busy));
    }
    if (state.announcement && state.announcement !== previous.announcement) {
      status.textContent = '';
      status.textContent = state.announcement.text;
    }
  });

  function submit() {
    const text = input.value.trim();
    if (!text || conversation.state.busy || conversation.state.unavailable) return;
    if (text.length > MAX_CHARS) return conversation.notify(`Please keep your question under ${MAX_CHARS} characters.`);
    void conversation.ask(text);
    input.value = '';
    resize();
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  input.addEventListener('input', resize);
  closeButton.addEventListener('click', () => host.requestClose());

  return {
    panel,
    form,
    send,
    input,
    newButton,
    /** Opens the panel, focused where the visitor can act: the question field, or Close when chat is unavailable. */
    show() {
      panel.hidden = false;
      (conversation.state.unavailable ? closeButton : input).focus();
      stick();
    },
  };
}
