/**
 * Moves a KB's vectors to the process's embedding model (e.g. after OPENAI_API_KEY was configured),
 * one document per transaction, then records the new model on the KB. Until the switch, queries keep
 * using the old model and only compare vectors of that model, so vectors of two models are never
 * mixed; full-text search covers everything throughout. Re-running it is harmless.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import type { KbId } from '../../ids';
import { embeddingText } from '../documents/embed-chunks';
import { vectorParam } from '../../../db/vector-param';
import { startAutomaticEvalRun } from '../evals/start-eval-run';

export async function enqueueReembeddingWhereNeeded(deps: Pick<AppDeps, 'db' | 'embeddings' | 'logger' | 'jobs'>): Promise<number> {
  const target = deps.embeddings.default.id;
  const stale = await deps.db
    .selectFrom('knowledge_bases')
    .select('id')
    .where((eb) => eb.or([eb('embedding_model', 'is', null), eb('embedding_model', '!=', target)]))
    .execute();
  for (const kb of stale) await deps.jobs.enqueue(deps.db, 'kbs__reembed', { kb_id: kb.id }, { jobKey: `reembed:${kb.id}` });
  if (stale.length) deps.logger.info({ kbs: stale.length, model: target }, 'knowledge bases queued for re-embedding');
  return stale.length;
}

export async function reembedKb(deps: Pick<AppDeps, 'db' | 'embeddings' | 'logger' | 'jobs' | 'models'>, kbId: KbId): Promise<{ chunks: number } | null> {
  const provider = deps.embeddings.default;
  const kb = await deps.db.selectFrom('knowledge_bases').select(['id', 'embedding_model']).where('id', '=', kbId).executeTakeFirst();
  if (!kb) return null;
  let moved = 0;
  for (;;) {
    // Documents that still have chunks on another model (including ones ingested meanwhile).
    const next = await deps.db
      .selectFrom('chunks')
      .select('document_id')
      .where('kb_id', '=', kbId)
      .where((eb) => eb.or([eb('embedding_model', 'is', null), eb('embedding_model', '!=', provider.id)]))
      .limit(1)
      .executeTakeFirst();
    if (!next) break;
    const chunks = await deps.db
      .selectFrom('chunks')
      .innerJoin('documents', 'documents.id', 'chunks.document_id')
      .select(['chunks.id', 'chunks.text', 'chunks.heading_path', 'documents.title', 'documents.identity'])
      .where('chunks.document_id', '=', next.document_id)
      .orderBy('chunks.position')
      .execute();
    const vectors = await provider.embedDocuments(chunks.map((c) => embeddingText({ headingPath: c.heading_path, text: c.text }, c.title, c.identity)));
    await deps.db.transaction().execute(async (trx) => {
      for (const [i, c] of chunks.entries()) {
        await trx
          .updateTable('chunks')
          .set({ embedding: sql`${vectorParam(vectors[i]!)}::vector`, embedding_dimensions: provider.dimensions, embedding_model: provider.id })
          .where('id', '=', c.id)
          .execute();
      }
    });
    moved += chunks.length;
  }
  await deps.db
    .updateTable('knowledge_bases')
    .set({ embedding_model: provider.id, embedding_dimensions: provider.dimensions, updated_at: new Date() })
    .where('id', '=', kbId)
    .execute();
  deps.logger.info({ kbId, chunks: moved, model: provider.id, from: kb.embedding_model }, 'knowledge base re-embedded');
  // New vectors retrieve differently: the KB's test set (if any) is run again against them.
  if (moved > 0 || kb.embedding_model !== provider.id) await startAutomaticEvalRun(deps, kbId, 'reindex');
  return { chunks: moved };
}
