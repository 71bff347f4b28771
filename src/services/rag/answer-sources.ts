/**
 * What an answer is made from, decided in one place for every transport (REST search and chat,
 * GraphQL, tRPC, the widget, voice's knowledge tool): a curated answer of the KB that matches the
 * question (match-annotation.ts) answers first, and then retrieval does not run; otherwise the
 * KB's passages (retrieve.ts), within the organisation's share of the database.
 */
import type { KnowledgeBase } from '../../../db/types';
import type { ServiceContext } from '../../context';
import { matchAnnotation } from '../annotations/match-annotation';
import type { MatchedAnnotation } from '../../answering/citations';
import { withOrgShare } from '../org-share';
import { retrieve, type Retrieval } from '../../answering/retrieval/retrieve';

export type AnswerSources = { retrieval: Retrieval; annotation: MatchedAnnotation | null };

export async function findAnswerSources(
  ctx: ServiceContext,
  kb: Pick<KnowledgeBase, 'id' | 'embedding_model'>,
  input: {
    /** What retrieval searches: the question, or a chat follow-up condensed to stand alone. */
    query: string;
    /** The question as asked, when it differs from `query`: a curated answer may match either. */
    asked?: string;
    topK: number;
  },
): Promise<AnswerSources> {
  const annotation = await matchAnnotation(ctx, kb, [input.query, ...(input.asked ? [input.asked] : [])]);
  if (annotation) return { retrieval: { chunks: [], confident: true }, annotation };
  const retrieval = await withOrgShare(ctx, () => retrieve(ctx, kb, input.query, { topK: input.topK }));
  return { retrieval, annotation: null };
}
