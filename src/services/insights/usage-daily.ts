/**
 * The daily aggregate behind usage and the dashboard's charts: per organisation, KB and UTC day,
 * questions, refusals and feedback. Written in the same transaction as the message it counts, so the
 * counts cannot drift from the conversations while both exist; it has no foreign key to the KB, so
 * it is what remains of a deleted KB's conversations.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../db/types';
import type { KbId, OrgId } from '../../ids';

export type UsageDelta = { questions?: number; refused?: number; feedback_up?: number; feedback_down?: number };

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

export async function addUsage(db: Kysely<Database>, key: { org_id: OrgId; kb_id: KbId | string; at: Date }, delta: UsageDelta): Promise<void> {
  const row = { questions: delta.questions ?? 0, refused: delta.refused ?? 0, feedback_up: delta.feedback_up ?? 0, feedback_down: delta.feedback_down ?? 0 };
  if (!row.questions && !row.refused && !row.feedback_up && !row.feedback_down) return;
  // A negative delta (a rating changed) always finds its row: the rating it undoes was counted there.
  await db
    .insertInto('usage_daily')
    .values({ org_id: key.org_id, kb_id: key.kb_id, day: utcDay(key.at), ...row })
    .onConflict((oc) =>
      oc.columns(['org_id', 'day', 'kb_id']).doUpdateSet({
        questions: sql`usage_daily.questions + excluded.questions`,
        refused: sql`usage_daily.refused + excluded.refused`,
        feedback_up: sql`usage_daily.feedback_up + excluded.feedback_up`,
        feedback_down: sql`usage_daily.feedback_down + excluded.feedback_down`,
      }),
    )
    .execute();
}
