/**
 * Executes an eval run (the `evals__run` job, or the CLI inline): every case of the run is asked
 * through the very path POST /api/rag/search answers by (startSearch: the same retrieval, gate and
 * answer model the widget's visitors get), as the KB's organisation, with the run's top_k. Per case
 * it stores the passages retrieved, where an expected document or page ranks among them, the
 * answer, whether it contains the expected answer, whether it refused, how long it took, and (with a
 * judge model) the judge's grade. A case whose answer path fails is recorded with its error and the
 * run goes on; a judge failure is the case's `judge: error`. Re-running the job resumes: cases
 * already stored are not asked again. The run then gets its summary, and its comparison with the
 * previous completed run (flag-regression.ts).
 */
import type { AppDeps } from '../../context';
import { createContext } from '../../context';
import { AppError } from '../../errors';
import type { EvalCaseId, EvalRunId } from '../../ids';
import { judgeAnswer } from '../../ai/judge';
import type { EvalPassage, EvalRunCase } from '../../../db/json-columns';
import type { Citation } from '../../answering/citations';
import { startSearch } from '../rag/search';
import { flagRegression } from './flag-regression';
import { answerContains, documentHitRank, pageHitRank, summariseResults } from './score-evals';

type Outcome = 'completed' | 'skipped';

const elapsedMs = (start: bigint) => Math.round(Number(process.hrtime.bigint() - start) / 1e6);

async function askCase(ctx: ReturnType<typeof createContext>, kbId: string, topK: number, c: EvalRunCase) {
  const start = process.hrtime.bigint();
  let sources: Citation[] = [];
  let answer = '';
  let refused = false;
  let error: string | null = null;
  try {
    const events = await startSearch(ctx, { kb_id: kbId, query: c.question, top_k: topK });
    for await (const e of events) {
      if (e.type === 'sources') sources = e.citations;
      if (e.type === 'done') {
        answer = e.answer;
        refused = e.refused;
      }
    }
  } catch (err) {
    error = err instanceof AppError ? err.message : 'The answer path failed';
    ctx.logger.warn({ err, caseId: c.id }, 'eval case failed');
  }
  const latency_ms = elapsedMs(start);
  const passages: EvalPassage[] = sources.map((s) => ({ rank: s.marker, document_id: s.doc_id, document_name: s.filename, page: s.page, url: s.url, score: s.score }));
  return { passages, answer, refused, error, latency_ms };
}

async function judge(deps: AppDeps, c: EvalRunCase, answer: string) {
  if (!deps.models.judgeModel) return { judge: null, judge_note: null };
  try {
    const v = await judgeAnswer(deps.models.judgeModel, { question: c.question, expected: c.answer!, answer });
    return { judge: v.verdict, judge_note: v.note || null };
  } catch (err) {
    deps.logger.warn({ err, caseId: c.id }, 'eval judge failed');
    const message = err instanceof Error ? err.message : String(err);
    return { judge: 'error' as const, judge_note: message.slice(0, 300) };
  }
}

export async function executeEvalRun(deps: AppDeps, runId: EvalRunId): Promise<Outcome> {
  const run = await deps.db.selectFrom('eval_runs').selectAll().where('id', '=', runId).executeTakeFirst();
  if (!run || run.status === 'completed' || run.status === 'failed') return 'skipped';
  const org = await deps.db.selectFrom('organizations').selectAll().where('id', '=', run.org_id).executeTakeFirstOrThrow();
  const ctx = createContext(deps, org, { requestId: `eval-${run.id}` });
  await deps.db.updateTable('eval_runs').set({ status: 'running', started_at: run.started_at ?? new Date() }).where('id', '=', run.id).execute();

  const asked = new Set((await deps.db.selectFrom('eval_results').select('case_id').where('run_id', '=', run.id).execute()).map((r) => r.case_id as string));
  for (const [position, c] of run.cases.entries()) {
    if (asked.has(c.id)) continue;
    const got = await askCase(ctx, run.kb_id, run.settings.top_k, c);
    const expected = { answer: c.answer, documents: c.documents, pages: c.pages, answerable: c.answerable };
    const contains = c.answer && got.error === null ? answerContains(got.answer, c.answer) : null;
    const judged = run.settings.judge && c.answer && c.answerable && got.error === null && !got.refused ? await judge(deps, c, got.answer) : { judge: null, judge_note: null };
    await deps.db
      .insertInto('eval_results')
      .values({
        run_id: run.id,
        case_id: c.id as EvalCaseId,
        position,
        question: c.question,
        expected: JSON.stringify(expected),
        passages: JSON.stringify(got.passages),
        doc_hit_rank: documentHitRank(got.passages, expected),
        page_hit_rank: pageHitRank(got.passages, expected),
        answer: got.answer,
        answer_contains: contains,
        refused: got.refused,
        latency_ms: got.latency_ms,
        ...judged,
        error: got.error,
      })
      .onConflict((oc) => oc.columns(['run_id', 'case_id']).doNothing())
      .execute();
    asked.add(c.id);
    await deps.db.updateTable('eval_runs').set({ progress_done: asked.size }).where('id', '=', run.id).execute();
  }

  const results = await deps.db.selectFrom('eval_results').selectAll().where('run_id', '=', run.id).execute();
  const summary = summariseResults(results);
  const finished = await deps.db
    .updateTable('eval_runs')
    .set({ status: 'completed', summary: JSON.stringify(summary), progress_done: results.length, finished_at: new Date(), error: null })
    .where('id', '=', run.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await flagRegression(deps, finished);
  return 'completed';
}

/** The job's last attempt failed: the run is marked failed with a message, so it does not look running forever. */
export async function failEvalRun(deps: Pick<AppDeps, 'db'>, runId: EvalRunId, message: string): Promise<void> {
  await deps.db.updateTable('eval_runs').set({ status: 'failed', error: message.slice(0, 500), finished_at: new Date() }).where('id', '=', runId).where('status', '!=', 'completed').execute();
}
