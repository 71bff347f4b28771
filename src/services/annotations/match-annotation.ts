/**
 * The curated answer that answers a question, if any: an enabled annotation of the same KB (and
 * organisation) whose question is the same wording, or is at least ANNOTATION_MATCH cosine-similar
 * by the KB's embedding model. The best match wins; a KB without enabled annotations costs one
 * indexed query and no embedding.
 *
 * Why 0.9: with the offline model, paraphrases written for the purpose measure 0.54-0.92 and
 * different questions on the same subject 0.37-0.89 ("how do I install" / "uninstall the app"
 * 0.89, "what time" / "where did the accident happen" 0.89). A curated answer given to the wrong
 * question is worse than a retrieved one, so the threshold sits above every different pair
 * measured: close rewordings match, looser paraphrases go to retrieval (test/services/annotations).
 */
import type { KnowledgeBase } from '../../../db/types';
import type { MatchedAnnotation } from '../../answering/citations';
import type { ServiceContext } from '../../context';
import { cosine, questionModel, sameWording, toBytes, toVector } from '../../answering/retrieval/question-vectors';

export const ANNOTATION_MATCH = 0.9;


export async function matchAnnotation(
  ctx: Pick<ServiceContext, 'db' | 'org' | 'embeddings'>,
  kb: Pick<KnowledgeBase, 'id' | 'embedding_model'>,
  /** The question as asked, and (chat) as condensed to stand alone; the best of them counts. */
  questions: readonly string[],
): Promise<MatchedAnnotation | null> {
  const asked = [...new Set(questions.map((q) => q.trim()).filter(Boolean))];
  if (asked.length === 0) return null;
  const rows = await ctx.db
    .selectFrom('annotations')
    .select(['id', 'question', 'answer', 'embedding', 'embedding_model'])
    .where('kb_id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .where('enabled', '=', true)
    .execute();
  if (rows.length === 0) return null;
  const exact = rows.find((r) => asked.some((q) => sameWording(q, r.question)));
  if (exact) return { annotation: exact, similarity: 1 };

  const model = questionModel(ctx, kb);
  const stale = rows.filter((r) => !r.embedding || r.embedding_model !== model.id);
  const [fresh, queries] = await Promise.all([
    stale.length ? model.embedDocuments(stale.map((r) => r.question)) : Promise.resolve([]),
    model.embedDocuments(asked),
  ]);
  // A KB re-embedded with another model: its annotations' vectors follow on first use.
  await Promise.all(
    stale.map((r, i) => ctx.db.updateTable('annotations').set({ embedding: toBytes(fresh[i]!), embedding_model: model.id }).where('id', '=', r.id).execute()),
  );
  const vectorOf = new Map(stale.map((r, i) => [r.id, fresh[i]!]));
  let best: MatchedAnnotation | null = null;
  for (const r of rows) {
    const v = vectorOf.get(r.id) ?? toVector(r.embedding!);
    for (const q of queries) {
      const similarity = cosine(v, q);
      if (similarity >= ANNOTATION_MATCH && (!best || similarity > best.similarity)) best = { annotation: r, similarity };
    }
  }
  return best;
}
