/**
 * Unanswered questions of a KB: the questions it refused, answered with low support, or whose
 * answer a visitor rated not helpful, grouped by meaning so an administrator sees which topics are
 * missing, not the same question twenty times. Grouping uses the service's own embeddings (the
 * KB's embedding model, else the configured default): each question's vector is computed once and
 * stored on its message.
 *
 * Groups are complete-linkage: a question joins the first group whose every member is at least
 * GROUP_SIMILARITY cosine-similar to it, so a group cannot drift from one question to another
 * through a chain of neighbours (a centroid did: "weather at the site" joined "where did the
 * accident happen"). A group leaves the list once it is fixed: a later run of the same question
 * (similar to every member, asked after the newest) was answered with support and not rated
 * down, or an enabled curated answer of the KB matches its newest question (match-annotation.ts).
 * Groups are listed newest first, each with its count and the conversations it came from. The
 * newest SCAN_LIMIT such questions in the range are considered.
 */
import { sql } from 'kysely';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import type { MessageId, SessionId } from '../../ids';
import { parseInput } from '../../validation';
import { authorize } from '../access/roles';
import { ANNOTATION_MATCH } from '../annotations/match-annotation';
import { endOf, startOf } from '../chat/list-conversations';
import { requireKb } from '../kbs/require-kb';
import { cosine, questionModel, sameWording, toBytes, toVector } from '../../answering/retrieval/question-vectors';

/** Below this cosine similarity to the best passage it cites, an answer counts as weakly supported. */
export const LOW_SUPPORT = 0.5;
/**
 * Measured with the offline model on paraphrase pairs and different-question pairs written for the
 * purpose (test/services/insights/question-similarity.test.ts): paraphrases 0.54-0.92 (most above
 * 0.79), different questions on one subject 0.37-0.89. At 0.78 most paraphrases meet and most
 * different questions stay apart; a split group costs a second row, a merged one hides a question.
 */
export const GROUP_SIMILARITY = 0.78;
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
  feedback: number | null;
};

export async function listUnansweredQuestions(ctx: ServiceContext, rawInput: z.input<typeof ZUnansweredInput>) {
  authorize(ctx, 'content.read');
  const input = parseInput(ZUnansweredInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const from = input.from ? [sql`q.created_at >= ${startOf(input.from)}`] : [];
  const range = [...from, ...(input.to ? [sql`q.created_at < ${endOf(input.to)}`] : [])];
  const unanswered = sql`(ans.refused or coalesce(ans.support < ${LOW_SUPPORT}, false) or coalesce(ans.feedback = -1, false))`;
  const answeredWell = sql`(not ans.refused and ans.support >= ${LOW_SUPPORT} and coalesce(ans.feedback, 0) <> -1)`;
  // Each question with the answer that followed it in its conversation: the unanswered ones in the
  // range, and the answered ones since its start (a fix may come after the range ends).
  const questions = (where: ReturnType<typeof sql>) => sql<Row>`
    select q.id, q.session_id, q.content, q.created_at, q.embedding, q.embedding_model, ans.refused, ans.support, ans.feedback
    from chat_sessions s
    join chat_messages q on q.session_id = s.id and q.role = 'user'
    join lateral (
      select a.refused, a.support, a.feedback from chat_messages a
      where a.session_id = q.session_id and a.role = 'assistant' and (a.created_at, a.id) > (q.created_at, q.id)
      order by a.created_at, a.id limit 1) ans on true
    where s.kb_id = ${kb.id} and s.org_id = ${ctx.org.id} and ${where}
    order by q.created_at desc, q.id desc
    limit ${SCAN_LIMIT}`;
  const [{ rows }, { rows: answered }, annotations] = await Promise.all([
    questions(sql.join([unanswered, ...range], sql` and `)).execute(ctx.db),
    questions(sql.join([answeredWell, ...from], sql` and `)).execute(ctx.db),
    ctx.db.selectFrom('annotations').select(['question', 'embedding', 'embedding_model']).where('kb_id', '=', kb.id).where('org_id', '=', ctx.org.id).where('enabled', '=', true).execute(),
  ]);

  const provider = questionModel(ctx, kb);
  const vectors = new Map<MessageId, Float32Array>();
  const missing: Row[] = [];
  for (const r of [...rows, ...answered]) {
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
  const annotationVectors = annotations
    .filter((a) => a.embedding && a.embedding_model === provider.id)
    .map((a) => ({ question: a.question, vector: toVector(a.embedding!) }));

  type Group = { rows: Row[]; vectors: Float32Array[] };
  const groups: Group[] = [];
  for (const r of rows) {
    const v = vectors.get(r.id)!;
    const home = groups.find((g) => g.vectors.every((m) => cosine(m, v) >= GROUP_SIMILARITY));
    if (home) {
      home.rows.push(r);
      home.vectors.push(v);
    } else groups.push({ rows: [r], vectors: [v] });
  }

  const fixedLater = (g: Group) => {
    const newest = new Date(g.rows[0]!.created_at).getTime();
    return answered.some((a) => {
      if (new Date(a.created_at).getTime() <= newest) return false;
      const v = vectors.get(a.id)!;
      return g.vectors.every((m) => cosine(m, v) >= GROUP_SIMILARITY);
    });
  };
  const curated = (g: Group) =>
    annotations.some((a) => sameWording(a.question, g.rows[0]!.content)) || annotationVectors.some((a) => cosine(a.vector, g.vectors[0]!) >= ANNOTATION_MATCH);
  const open = groups.filter((g) => !fixedLater(g) && !curated(g));

  // Rows arrive newest first, so each group's first row is its newest question and groups are
  // already in order of their newest question.
  return {
    scanned: rows.length,
    groups: open.slice(0, input.limit).map((g) => ({
      question: g.rows[0]!.content,
      count: g.rows.length,
      refused_count: g.rows.filter((r) => r.refused).length,
      rated_down_count: g.rows.filter((r) => r.feedback === -1).length,
      last_asked_at: new Date(g.rows[0]!.created_at).toISOString(),
      first_asked_at: new Date(g.rows[g.rows.length - 1]!.created_at).toISOString(),
      questions: g.rows.map((r) => ({
        message_id: r.id,
        session_id: r.session_id,
        text: r.content,
        asked_at: new Date(r.created_at).toISOString(),
        refused: r.refused,
        support: r.support,
        rated_down: r.feedback === -1,
      })),
    })),
  };
}
