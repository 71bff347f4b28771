/**
 * A visitor's thumbs up or down (with an optional comment) on an answer in the widget. The widget
 * session's chat id is the capability, as for its history: the answer must be an assistant message
 * of that conversation, the conversation must be a widget (or widget voice) conversation of the
 * widget's own KB and organisation. Anything else is "not found", so ids cannot be probed. Rating
 * again replaces the rating (null clears it); usage counts follow, on the answer's day.
 *
 * A conversation holds at most FEEDBACK_PER_SESSION rated answers (rated conversations are never
 * evicted, so ratings must be bounded); the per-organisation daily cap is counted by the widget route.
 */
import type { Transaction } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../../db/types';
import { AppError, notFound } from '../../errors';
import { isIdOf, type MessageId, type SessionId } from '../../ids';
import { parseInput } from '../../validation';
import type { WidgetCaller } from '../widget/authenticate-widget';
import { addUsage } from './usage-daily';

export const MAX_FEEDBACK_COMMENT_CHARS = 500;

export const ZRateAnswerInput = z
  .object({
    session_id: z.string().min(1).max(100),
    message_id: z.string().min(1).max(100),
    rating: z.enum(['up', 'down']).nullable(),
    comment: z.string().trim().max(MAX_FEEDBACK_COMMENT_CHARS, `at most ${MAX_FEEDBACK_COMMENT_CHARS} characters`).optional(),
  })
  .strict();

const value = (r: 'up' | 'down' | null) => (r === 'up' ? 1 : r === 'down' ? -1 : null);
const delta = (v: number | null, sign: 1 | -1) => ({ feedback_up: v === 1 ? sign : 0, feedback_down: v === -1 ? sign : 0 });

export async function rateAnswer(caller: WidgetCaller, rawInput: z.input<typeof ZRateAnswerInput>) {
  const input = parseInput(ZRateAnswerInput, rawInput);
  const { ctx, kb } = caller;
  if (!isIdOf('sess', input.session_id) || !isIdOf('msg', input.message_id)) throw notFound('Answer');
  const rating = value(input.rating);
  const comment = rating === null ? null : input.comment || null;
  return ctx.db.transaction().execute(async (trx) => {
    const message = await trx
      .selectFrom('chat_messages as m')
      .innerJoin('chat_sessions as s', 's.id', 'm.session_id')
      .select(['m.id', 'm.feedback', 'm.created_at'])
      .where('m.id', '=', input.message_id as MessageId)
      .where('m.session_id', '=', input.session_id as SessionId)
      .where('m.role', '=', 'assistant')
      .where('s.kb_id', '=', kb.id)
      .where('s.org_id', '=', ctx.org.id)
      .where('s.source', 'in', ['widget', 'voice'])
      .forUpdate()
      .executeTakeFirst();
    if (!message) throw notFound('Answer');
    if (message.feedback === null && rating !== null) await assertSessionFeedbackRoom(trx, input.session_id as SessionId, ctx.config.widget.feedbackPerSession);
    await trx
      .updateTable('chat_messages')
      .set({ feedback: rating, feedback_comment: comment, feedback_at: rating === null ? null : new Date() })
      .where('id', '=', message.id)
      .execute();
    if (message.feedback !== rating) {
      const key = { org_id: ctx.org.id, kb_id: kb.id, at: message.created_at };
      const before = delta(message.feedback, -1);
      const after = delta(rating, 1);
      await addUsage(trx, key, { feedback_up: before.feedback_up + after.feedback_up, feedback_down: before.feedback_down + after.feedback_down });
    }
    return { message_id: message.id, rating: input.rating, comment };
  });
}

async function assertSessionFeedbackRoom(trx: Transaction<Database>, sessionId: SessionId, cap: number) {
  const { rated } = await trx
    .selectFrom('chat_messages')
    .select((eb) => eb.fn.countAll<string>().as('rated'))
    .where('session_id', '=', sessionId)
    .where('feedback', 'is not', null)
    .executeTakeFirstOrThrow();
  if (Number(rated) >= cap) {
    throw new AppError('rate_limited', `This conversation already has ${cap} rated answers, the most one conversation may hold; change or clear one of them instead`);
  }
}
