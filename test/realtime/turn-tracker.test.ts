/**
 * The turn tracker on its own: fed events with the times they happened (an injected clock, no
 * sockets, no timers), it must decide barge-in, truncation at what the browser played, which turn
 * a late transcript belongs to, and store each answer once, as heard.
 */
import { describe, expect, it } from 'vitest';
import type { Citation } from '../../src/answering/citations';
import { heardPart, INTERRUPTED_WAIT_MS, PLAYBACK_SLACK_MS, TurnTracker, USER_TRANSCRIPT_WAIT_MS, type TurnDecision } from '../../realtime/turn-tracker';

const ANSWER = 'We open at nine and close at five on weekdays';

const citation = (marker: number): Citation => ({
  doc_id: `doc_${marker}`,
  score: 0.9,
  chunk_id: `chk_${marker}`,
  marker,
  filename: 'hours.md',
  url: null,
  page: null,
  heading: null,
  snippet: 'Opening hours',
  used: true,
});

const ofType = <T extends TurnDecision['type']>(decisions: TurnDecision[], type: T) =>
  decisions.filter((d): d is Extract<TurnDecision, { type: T }> => d.type === type);

/** A tracker whose visitor asked at 0 (question item q1) and whose answer (a1, `ms` of audio) started playing at 100. */
function speaking(ms = 2_000) {
  const tracker = new TurnTracker();
  const asked = tracker.speechStarted('q1', 0);
  const turn = tracker.currentTurn;
  expect(tracker.audio('a1', ms, 100)).toBe(true);
  tracker.transcriptDelta('a1', ANSWER, 100);
  return { tracker, turn, asked };
}

describe('turn tracker', () => {
  it('opens a turn per question and expects its transcript for a while', () => {
    const { asked, turn } = speaking();
    // The turn before the first question never spoke: nothing to store, nothing to interrupt.
    expect(asked).toEqual([{ type: 'expect-question', turn, until: USER_TRANSCRIPT_WAIT_MS }]);
  });

  it('on barge-in while the answer plays, interrupts the browser and truncates at the played position it reports', () => {
    const { tracker, turn } = speaking(2_000);
    const barge = tracker.speechStarted('q2', 600);
    expect(barge.map((d) => d.type)).toEqual(['await-played', 'interrupt', 'expect-question']);
    expect(ofType(barge, 'await-played')[0]).toEqual({ type: 'await-played', turn, at: 600 + INTERRUPTED_WAIT_MS });
    expect(ofType(barge, 'store-answer')).toEqual([]);

    const reported = tracker.interrupted(500);
    expect(reported[0]).toEqual({ type: 'truncate', itemId: 'a1', audioEndMs: 500 });
    expect(ofType(reported, 'store-answer')).toEqual([
      { type: 'store-answer', turn, text: heardPart(ANSWER, 500 / 2_000), sources: [], interrupted: true },
    ]);
    expect(heardPart(ANSWER, 500 / 2_000)).toBe('We open at…');
    // The report is answered once; a second one, and the estimate's deadline, do nothing.
    expect(tracker.interrupted(900)).toEqual([]);
    expect(tracker.playedUnreported(turn, 600 + INTERRUPTED_WAIT_MS)).toEqual([]);
  });

  it('truncates within the audio the model produced, whatever the browser reports', () => {
    const { tracker } = speaking(1_000);
    tracker.speechStarted('q2', 300);
    expect(ofType(tracker.interrupted(60_000), 'truncate')).toEqual([{ type: 'truncate', itemId: 'a1', audioEndMs: 1_000 }]);
  });

  it('estimates the played position from the clock when the browser never reports it', () => {
    const { tracker, turn } = speaking(10_000);
    tracker.speechStarted('q2', 1_000);
    expect(tracker.playedUnreported(turn + 1, 3_000)).toEqual([]);
    const estimated = tracker.playedUnreported(turn, 3_000);
    expect(ofType(estimated, 'truncate')).toEqual([{ type: 'truncate', itemId: 'a1', audioEndMs: 3_000 - 100 }]);
    expect(ofType(estimated, 'store-answer')[0]?.interrupted).toBe(true);
  });

  it('treats speech just after playback ended as barge-in (the browser lags), and later speech as a new question', () => {
    const lagging = speaking(1_000).tracker;
    expect(ofType(lagging.speechStarted('q2', 100 + 1_000 + PLAYBACK_SLACK_MS - 1), 'interrupt')).toHaveLength(1);

    const { tracker, turn } = speaking(1_000);
    const later = tracker.speechStarted('q2', 100 + 1_000 + PLAYBACK_SLACK_MS);
    expect(ofType(later, 'interrupt')).toEqual([]);
    expect(ofType(later, 'truncate')).toEqual([]);
    // Heard to the end but never finished by the model: stored whole, marked interrupted.
    expect(ofType(later, 'store-answer')).toEqual([{ type: 'store-answer', turn, text: ANSWER, sources: [], interrupted: true }]);
  });

  it('shows a finished answer at once and stores it when it has played, once', () => {
    const { tracker, turn } = speaking(2_000);
    const done = tracker.answered(false, 500);
    expect(done).toEqual([
      { type: 'show-answer', text: ANSWER, sources: [] },
      { type: 'commit-at', turn, at: 100 + 2_000 },
    ]);
    expect(tracker.playedOut(turn)).toEqual([{ type: 'store-answer', turn, text: ANSWER, sources: [], interrupted: false }]);
    expect(tracker.playedOut(turn)).toEqual([]);
    expect(ofType(tracker.abandon(3_000), 'store-answer')).toEqual([]);
    expect(ofType(tracker.speechStarted('q2', 3_000), 'store-answer')).toEqual([]);
  });

  it('a barge-in withdraws the pending store: what was heard is stored instead of the whole answer', () => {
    const { tracker, turn } = speaking(2_000);
    tracker.answered(false, 400);
    tracker.speechStarted('q2', 1_100);
    expect(tracker.playedOut(turn)).toEqual([]);
    const heard = ofType(tracker.interrupted(1_000), 'store-answer');
    expect(heard).toEqual([{ type: 'store-answer', turn, text: heardPart(ANSWER, 0.5), sources: [], interrupted: true }]);
  });

  it('attaches a transcript that completes after its turn ended to that turn, not the current one', () => {
    const { tracker, turn: first } = speaking(1_000);
    tracker.answered(false, 200);
    tracker.playedOut(first);
    tracker.speechStarted('q2', 5_000);
    const second = tracker.currentTurn;
    expect(second).not.toBe(first);

    expect(tracker.questionTranscribed('q1', '  When do you open?  ')).toEqual([
      { type: 'store-question', turn: first, text: 'When do you open?' },
      { type: 'question-settled', turn: first },
    ]);
    // Its transcription failed: nothing to store, but its answer need not wait.
    expect(tracker.questionTranscribed('q2', null)).toEqual([{ type: 'question-settled', turn: second }]);
    // A question item the tracker never saw open a turn is still the visitor's words.
    expect(tracker.questionTranscribed('q9', 'Hello')).toEqual([{ type: 'store-question', turn: null, text: 'Hello' }]);
    expect(tracker.questionTranscribed('q1', 'again')).toEqual([{ type: 'store-question', turn: null, text: 'again' }]);
  });

  it('keeps a spoken preamble and the tool results with the turn, and the answer after them', () => {
    const tracker = new TurnTracker();
    tracker.speechStarted('q1', 0);
    const turn = tracker.currentTurn;
    tracker.transcriptDelta('p1', 'Let me ', 10);
    tracker.audio('p1', 800, 10);
    tracker.transcriptDone('p1', 'Let me check.');
    const sources = tracker.sources();
    expect(sources.count).toBe(0);
    sources.add([citation(1)]);
    expect(sources.count).toBe(1);
    // The answer's item queues behind the preamble in the browser: it starts when the preamble ends.
    expect(tracker.audio('a1', 1_000, 300)).toBe(true);
    expect(tracker.audio('a1', 1_000, 400)).toBe(false);
    expect(tracker.playbackEndsAt).toBe(10 + 800 + 2_000);
    tracker.transcriptDelta('a1', 'We open at nine [1].', 400);

    const done = tracker.answered(true, 500);
    expect(done[0]).toEqual({ type: 'show-answer', text: 'Let me check. We open at nine [1].', sources: [citation(1)] });
    expect(tracker.playedOut(turn)).toEqual([
      // Cut short by the model (incomplete): stored whole, but marked.
      { type: 'store-answer', turn, text: 'Let me check. We open at nine [1].', sources: [citation(1)], interrupted: true },
    ]);
  });

  it('abandoning mid-answer stores what had played by then', () => {
    const { tracker, turn } = speaking(4_000);
    expect(tracker.abandon(100 + 1_000)).toEqual([{ type: 'store-answer', turn, text: heardPart(ANSWER, 0.25), sources: [], interrupted: true }]);
    expect(tracker.abandon(5_000)).toEqual([]);
  });
});

describe('heardPart', () => {
  it('cuts at a word boundary and marks the cut', () => {
    expect(heardPart('one two three four', 0.5)).toBe('one two…');
    expect(heardPart(' all of it ', 1)).toBe('all of it');
    expect(heardPart('nothing', 0)).toBe('');
  });
});
