/**
 * The turns of one voice conversation as a state machine: fed what happened (speech started, audio
 * and transcript deltas, a finished answer, what the browser played) with the time it happened,
 * it returns what to do (interrupt the browser, truncate the model's audio, store a turn). It owns
 * no sockets and no timers: a decision that must happen later carries its time, and the caller
 * feeds it back then. Times are milliseconds on one monotonic clock of the caller's choosing.
 *
 * A turn is the visitor's question and the model's answer to it, which may take several responses
 * (a spoken preamble, tool calls, the answer). Sources and spoken parts belong to the turn; the
 * answer is stored once, as heard.
 */
import type { Citation } from '../src/services/rag/answer-events';

/** A spoken answer's user transcript may arrive after the answer; wait this long to store them in order. */
export const USER_TRANSCRIPT_WAIT_MS = 3_000;
/** Playback in the browser lags the frames sent by its jitter buffer; speech within this is still barge-in. */
export const PLAYBACK_SLACK_MS = 500;
/** After `interrupt`, how long the browser has to report played_ms before the gateway estimates it. */
export const INTERRUPTED_WAIT_MS = 2_000;

export type TurnId = number;

export type TurnDecision =
  /** Tell the browser to drop the audio it has queued: the visitor spoke over the answer. */
  | { type: 'interrupt' }
  /** If the browser has not reported what it played by `at`, call playedUnreported(turn, at). */
  | { type: 'await-played'; turn: TurnId; at: number }
  /** Cut the model's audio item where the visitor stopped hearing it. */
  | { type: 'truncate'; itemId: string; audioEndMs: number }
  /** The visitor's question of `turn` may still be transcribed until `until`: store its answer after it. */
  | { type: 'expect-question'; turn: TurnId; until: number }
  /** The question's transcript is in (or will not come): its answer need not wait any longer. */
  | { type: 'question-settled'; turn: TurnId }
  | { type: 'store-question'; turn: TurnId | null; text: string }
  /** The model finished answering: show the whole answer and its sources now. */
  | { type: 'show-answer'; text: string; sources: Citation[] }
  /** The answer has played by `at`: call playedOut(turn) then. */
  | { type: 'commit-at'; turn: TurnId; at: number }
  | { type: 'store-answer'; turn: TurnId; text: string; sources: Citation[]; interrupted: boolean };

/** Where a tool call's passages go: the turn that was current when the model called it. */
export type TurnSources = { readonly count: number; add(sources: Citation[]): void };

/** One assistant audio item as the browser plays it: it starts when the browser's queue reaches it. */
type SpokenItem = { itemId: string; text: string; startsAt: number; ms: number };

type Turn = {
  id: TurnId;
  sources: Citation[];
  /** Spoken parts finished before the current item (a preamble before the tool call). */
  prior: string[];
  item: SpokenItem | null;
  /** The model finished the answer (completed or incomplete). */
  finished: boolean;
  incomplete: boolean;
  /** A commit-at is outstanding; a barge-in withdraws it (what was heard is stored instead). */
  commitDue: boolean;
  stored: boolean;
};

/** The first `fraction` of a transcript, cut at a word boundary: what was heard of it. */
export function heardPart(text: string, fraction: number): string {
  const t = text.trim();
  if (fraction >= 1) return t;
  if (fraction <= 0) return '';
  const n = Math.round(t.length * fraction);
  const cut = t.slice(0, n + 1).lastIndexOf(' ');
  const part = (cut > 0 ? t.slice(0, cut) : t.slice(0, n)).trimEnd();
  return part ? `${part}…` : '';
}

/** What the browser has played of `item` by `now`, going by its queue (used when it cannot tell us). */
function estimatePlayed(item: SpokenItem, now: number): number {
  return Math.max(0, Math.min(item.ms, now - item.startsAt));
}

export class TurnTracker {
  private nextId = 0;
  private turn: Turn = this.newTurn();
  /** Turns not stored yet, by id: the current one, one awaiting played_ms, ones waiting to play out. */
  private readonly open = new Map<TurnId, Turn>();
  /** Question audio items, to the turn they opened: their transcript may arrive turns later. */
  private readonly questions = new Map<string, TurnId>();
  /** When the browser's playback queue runs dry, as far as the gateway can tell. */
  private playbackEnds = 0;
  private pendingInterrupt: { turn: Turn; item: SpokenItem } | null = null;

  constructor() {
    this.open.set(this.turn.id, this.turn);
  }

  get currentTurn(): TurnId {
    return this.turn.id;
  }

  /** The current turn's audio item (null before its answer speaks). */
  get currentItemId(): string | null {
    return this.turn.item?.itemId ?? null;
  }

  get playbackEndsAt(): number {
    return this.playbackEnds;
  }

  /** The current turn's sources, for a tool call it starts now. */
  sources(): TurnSources {
    const t = this.turn;
    return { get count() { return t.sources.length; }, add: (sources) => void t.sources.push(...sources) };
  }

  /**
   * The visitor started speaking (`itemId`: their question's audio item). Over an answer still
   * playing, that is barge-in: the browser drops its queue and is asked what it played. Otherwise
   * the current turn is over and stored as heard. Either way a new turn begins.
   */
  speechStarted(itemId: string, now: number): TurnDecision[] {
    const out: TurnDecision[] = [];
    const old = this.turn;
    const item = old.item;
    if (item && !old.stored && now < item.startsAt + item.ms + PLAYBACK_SLACK_MS) {
      old.commitDue = false;
      if (this.pendingInterrupt) out.push(...this.interruptedAt(estimatePlayed(this.pendingInterrupt.item, now)));
      this.pendingInterrupt = { turn: old, item };
      out.push({ type: 'await-played', turn: old.id, at: now + INTERRUPTED_WAIT_MS });
      this.playbackEnds = now;
      out.push({ type: 'interrupt' });
    } else {
      out.push(...this.abandon(now));
    }
    this.turn = this.newTurn();
    this.open.set(this.turn.id, this.turn);
    this.questions.set(itemId, this.turn.id);
    out.push({ type: 'expect-question', turn: this.turn.id, until: now + USER_TRANSCRIPT_WAIT_MS });
    return out;
  }

  /** The browser reports how much of the interrupted answer it played. */
  interrupted(playedMs: number): TurnDecision[] {
    return this.interruptedAt(playedMs);
  }

  /** The browser never said what it played of `turn`'s answer: estimate it. */
  playedUnreported(turn: TurnId, now: number): TurnDecision[] {
    const pending = this.pendingInterrupt;
    if (pending?.turn.id !== turn) return [];
    return this.interruptedAt(estimatePlayed(pending.item, now));
  }

  /** The visitor's question audio `itemId` was transcribed (text may be empty) or could not be. */
  questionTranscribed(itemId: string, text: string | null): TurnDecision[] {
    const turn = this.questions.get(itemId) ?? null;
    const out: TurnDecision[] = [];
    const trimmed = text?.trim() ?? '';
    if (trimmed) out.push({ type: 'store-question', turn, text: trimmed });
    if (turn !== null) {
      this.questions.delete(itemId);
      out.push({ type: 'question-settled', turn });
    }
    return out;
  }

  /** `ms` of answer audio for `itemId` went to the browser. True when it is the item's first audio. */
  audio(itemId: string, ms: number, now: number): boolean {
    const item = this.spokenItem(itemId, now);
    const first = item.ms === 0;
    item.ms += ms;
    this.playbackEnds = Math.max(now, this.playbackEnds) + ms;
    return first;
  }

  transcriptDelta(itemId: string, delta: string, now: number): void {
    this.spokenItem(itemId, now).text += delta;
  }

  /** The item's whole transcript, which replaces the deltas. */
  transcriptDone(itemId: string, transcript: string): void {
    const item = this.turn.item;
    if (item && item.itemId === itemId) item.text = transcript;
  }

  /** The model finished the current turn's answer (`incomplete`: it was cut short). Stored once it has played. */
  answered(incomplete: boolean, now: number): TurnDecision[] {
    const t = this.turn;
    if (incomplete) t.incomplete = true;
    t.finished = true;
    const out: TurnDecision[] = [];
    const text = this.turnText(t, null);
    if (text) out.push({ type: 'show-answer', text, sources: [...t.sources] });
    t.commitDue = true;
    out.push({ type: 'commit-at', turn: t.id, at: now + Math.max(0, this.playbackEnds - now) });
    return out;
  }

  /** `turn`'s answer has played out (see commit-at). */
  playedOut(turn: TurnId): TurnDecision[] {
    const t = this.open.get(turn);
    return t?.commitDue ? this.commit(t, null) : [];
  }

  /** The current turn ends without an answer to wait for (a failed answer, a reconnect, the end): store what was heard. */
  abandon(now: number): TurnDecision[] {
    const out: TurnDecision[] = [];
    if (this.pendingInterrupt) out.push(...this.interruptedAt(estimatePlayed(this.pendingInterrupt.item, now)));
    const t = this.turn;
    if (t.stored) return out;
    if (t.finished && t.item && now >= t.item.startsAt + t.item.ms) return [...out, ...this.commit(t, null)];
    return [...out, ...this.commit(t, t.item ? estimatePlayed(t.item, now) : null)];
  }

  private newTurn(): Turn {
    return { id: ++this.nextId, sources: [], prior: [], item: null, finished: false, incomplete: false, commitDue: false, stored: false };
  }

  private interruptedAt(playedMs: number): TurnDecision[] {
    const pending = this.pendingInterrupt;
    if (!pending) return [];
    this.pendingInterrupt = null;
    // The model can only be truncated within the audio it produced (OpenAI refuses a truncate past it).
    const audioEndMs = Math.max(0, Math.min(Math.round(playedMs), Math.floor(pending.item.ms)));
    return [{ type: 'truncate', itemId: pending.item.itemId, audioEndMs }, ...this.commit(pending.turn, audioEndMs)];
  }

  /** The turn's audio item for this delta; a new item closes the previous one as a finished spoken part. */
  private spokenItem(itemId: string, now: number): SpokenItem {
    const t = this.turn;
    if (t.item?.itemId === itemId) return t.item;
    if (t.item?.text.trim()) t.prior.push(t.item.text.trim());
    t.item = { itemId, text: '', startsAt: Math.max(now, this.playbackEnds), ms: 0 };
    return t.item;
  }

  /** The turn's answer as heard: every finished part, and the current item cut at `playedMs` (null: all of it). */
  private turnText(t: Turn, playedMs: number | null): string {
    const item = t.item;
    const last = item ? (playedMs === null || item.ms <= 0 ? item.text.trim() : heardPart(item.text, playedMs / item.ms)) : '';
    return [...t.prior, last].filter(Boolean).join(' ').trim();
  }

  /** Stores the turn's answer once: all of it, or what played (`playedMs` of its current item). */
  private commit(t: Turn, playedMs: number | null): TurnDecision[] {
    if (t.stored) return [];
    t.stored = true;
    t.commitDue = false;
    this.open.delete(t.id);
    const text = this.turnText(t, playedMs);
    if (!text) return [];
    const cut = playedMs !== null && t.item !== null && playedMs < t.item.ms;
    return [{ type: 'store-answer', turn: t.id, text, sources: [...t.sources], interrupted: cut || t.incomplete || !t.finished }];
  }
}
