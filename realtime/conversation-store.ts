/**
 * Where a voice conversation's turns are written: the caller's chat session, one message after
 * another in the order they happened. An answer waits for its question's transcript (which may
 * arrive after the answer) for as long as the turn tracker says it may.
 */
import type { Logger } from '../src/logger';
import type { VoiceCaller } from '../src/services/voice/authorize-voice';
import { appendVoiceMessage } from '../src/services/voice/voice-turns';
import type { TurnId } from './turn-tracker';

export type StoredCitation = unknown;

export interface ConversationStore {
  /** `turn`'s question may still be transcribed for `waitMs`: its answer is written after it. */
  expectQuestion(turn: TurnId, waitMs: number): void;
  /** `turn`'s question transcript is in, or will not come. */
  questionSettled(turn: TurnId): void;
  question(text: string): void;
  answer(turn: TurnId, text: string, citations: StoredCitation[], interrupted: boolean): void;
  /** Stop waiting for any transcript: the conversation is over. */
  settleAll(): void;
  /** Resolves once every write queued so far is made (or failed, and was logged). */
  flushed(): Promise<void>;
}

export function chatSessionStore(caller: VoiceCaller, log: Logger): ConversationStore {
  let writes: Promise<void> = Promise.resolve();
  let lastStoredAt = 0;
  const questions = new Map<TurnId, { settled: Promise<void>; settle: () => void }>();

  const write = (role: 'user' | 'assistant', content: string, citations: StoredCitation[], after: Promise<void>, interrupted: boolean) => {
    writes = writes
      .then(() => after)
      .then(async () => {
        const at = Math.max(Date.now(), lastStoredAt + 1);
        lastStoredAt = at;
        await appendVoiceMessage(caller.ctx, caller.chatSessionId, { role, content, citations, at: new Date(at), interrupted });
      })
      .catch((err) => log.error({ err }, 'voice turn could not be stored'));
  };

  return {
    expectQuestion(turn, waitMs) {
      let settle!: () => void;
      const transcribed = new Promise<void>((resolve) => (settle = resolve));
      const settled = Promise.race([transcribed, new Promise<void>((r) => setTimeout(r, waitMs).unref())]);
      questions.set(turn, { settled, settle });
    },
    questionSettled(turn) {
      questions.get(turn)?.settle();
      questions.delete(turn);
    },
    question(text) {
      write('user', text, [], Promise.resolve(), false);
    },
    answer(turn, text, citations, interrupted) {
      write('assistant', text, citations, questions.get(turn)?.settled ?? Promise.resolve(), interrupted);
    },
    settleAll() {
      for (const q of questions.values()) q.settle();
    },
    flushed: () => writes,
  };
}
