/**
 * Unanswered questions of a KB: the questions it refused or answered with low support, grouped by
 * similar wording so an administrator sees which topics are missing, not the same question twenty
 * times. Grouping uses the service's own embeddings (the KB's embedding model, else the configured
 * default: the offline local model or OpenAI): each question's vector is computed once and stored on
 * its message, and a question joins the first group whose centroid is at least GROUP_SIMILARITY
 * cosine-similar. Groups are listed newest first, each with its count and the conversations it
 * came from. The newest SCAN_LIMIT such questions in the range are considered.
 */
import { sql } from 'kysely';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import type { MessageId, SessionId } from '../../ids';
import { parseInput } from '../../validation';
import { endOf, startOf } from '../chat/list-conversations';
import { requireKb } from '../kbs/require-kb';
import { authorize } from '../access/roles';

/** Below this cosine similarity to the best passage it cites, an answer counts as weakly supported. */
export const LOW_SUPPORT = 0.5;
/** Paraphrases measure 0.56-0.79 with the offline model, unrelated questions 0.05-0.48. */
export const GROUP_SIMILARITY = 0.55;
export const SCAN_LIMIT = 1000;

const ZDate = z.iso.datetime({ offset: true }).or(z.iso.date());
export const ZUnansweredInput = z
  .object({
    kb_id: z.string().min(1),
    from: ZDate.optional(),
    to: ZDate.optional(),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();

type Row = {
  id: MessageId;
  session_id: SessionId;
  content: string;
  created_at: Date | string;
  embedding: Uint8Array | null;
  embedding_model: string | null;
  refused: boolean;
  support: number | null;
};

const toBytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
function toVector(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b); // aligned, whatever the driver handed back
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}
const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

export async function listUnansweredQuestions(ctx: ServiceContext, rawInput: z.input<typeof ZUnansweredInput>) {
  authorize(ctx, 'content.read');
  const input = parseInput(ZUnansweredInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const range = [
    ...(input.from ? [sql`q.created_at >= ${startOf(input.from)}`] : []),
    ...(input.to ? [sql`q.created_at < ${endOf(input.to)}`] : []),
  ];
  // Each question with the answer that followed it in its conversation.
  const { rows } = await sql<Row>`
    select q.id, q.session_id, q.content, q.created_at, q.embedding, q.embedding_model, ans.refused, ans.support
    from chat_sessions s
    join chat_messages q on q.session_id = s.id and q.role = 'user'
    join lateral (
      select a.refused, a.support from chat_messages a
      where a.session_id = q.session_id and a.role = 'assistant' and (a.created_at, a.id) > (q.created_at, q.id)
      order by a.created_at, a.id limit 1) ans on true
    where s.kb_id = ${kb.id} and s.org_id = ${ctx.org.id}
      and (ans.refused or ans.support < ${LOW_SUPPORT})
      ${range.length ? sql`and ${sql.join(range, sql` and `)}` : sql``}
    order by q.created_at desc, q.id desc
    limit ${SCAN_LIMIT}`.execute(ctx.db);

  const provider = ctx.embeddings.get(kb.embedding_model) ?? ctx.embeddings.default;
  const vectors = new Map<MessageId, Float32Array>();
  const missing: Row[] = [];
  for (const r of rows) {
    if (r.embedding && r.embedding_model === provider.id) vectors.set(r.id, toVector(r.embedding));
    else missing.push(r);
  }
  if (missing.length) {
    const fresh = await provider.embedDocuments(missing.map((r) => r.content));
    await Promise.all(
      missing.map((r, i) => {
        vectors.set(r.id, fresh[i]!);
        return ctx.db.updateTable('chat_messages').set({ embedding: toBytes(fresh[i]!), embedding_model: provider.id }).where('id', '=', r.id).execute();
      }),
    );
  }

  type Group = { sum: Float32Array; centroid: Float32Array; rows: Row[] };
  const groups: Group[] = [];
  for (const r of rows) {
    const v = vectors.get(r.id)!;
    const home = groups.find((g) => dot(g.centroid, v) >= GROUP_SIMILARITY);
    if (!home) {
      groups.push({ sum: Float32Array.from(v), centroid: v, rows: [r] });
      continue;
    }
    home.rows.push(r);
    for (let i = 0; i < v.length; i++) home.sum[i]! += v[i]!;
    const norm = Math.hypot(...home.sum) || 1;
    home.centroid = home.sum.map((x) => x / norm);
  }

  // Rows arrive newest first, so each group's first row is its newest question and groups are
  // already in order of their newest question.
  return {
    scanned: rows.length,
    groups: groups.slice(0, input.limit).map((g) => ({
      question: g.rows[0]!.content,
      count: g.rows.length,
      refused_count: g.rows.filter((r) => r.refused).length,
      last_asked_at: new Date(g.rows[0]!.created_at).toISOString(),
      first_asked_at: new Date(g.rows[g.rows.length - 1]!.created_at).toISOString(),
      questions: g.rows.map((r) => ({
        message_id: r.id,
        session_id: r.session_id,
        text: r.content,
        asked_at: new Date(r.created_at).toISOString(),
        refused: r.refused,
        support: r.support,
      })),
    })),
  };
}
