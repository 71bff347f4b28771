/**
 * Starts a run of a KB's test set: the run row, with the cases as they are now, and its
 * `evals__run` job, in one transaction. Runs of one KB go through one job queue, one at a time, so
 * each compares with the run before it. Automatic runs (after a re-index, a re-crawl that changed
 * pages, a document ingested again, or a retrieval setting) start only when the KB has cases, and
 * not while another of its runs is still queued: that one will see the change too.
 */
import { z } from 'zod';
import type { AppDeps, ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { newId, type EvalRunId, type KbId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import type { EvalRunCase } from '../../../db/json-columns';
import type { EvalRunTrigger } from '../../../db/types';
import { toEvalRunDto, type EvalRunDto } from './eval-dto';
import type { EvalCaseLine } from './eval-case-format';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZStartEvalRunInput = z
  .object({
    kb_id: z.string().min(1),
    top_k: z.number().int().min(1).max(50).optional().describe("Overrides the KB's eval top_k for this run (to compare settings)"),
  })
  .strict();
export type StartEvalRunInput = z.input<typeof ZStartEvalRunInput>;

export const evalQueue = (kbId: string) => `evals:${kbId}`;

async function storedCases(db: AppDeps['db'], kbId: KbId): Promise<EvalRunCase[]> {
  const rows = await db.selectFrom('eval_cases').selectAll().where('kb_id', '=', kbId).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, question: r.question, answer: r.expected_answer, documents: r.expected_documents, pages: r.expected_pages, answerable: r.answerable }));
}

/** Cases read from a file (the CLI's --file), each with a fresh id: they are asked, not stored in the set. */
export function fileCases(lines: EvalCaseLine[]): EvalRunCase[] {
  return lines.map((c) => ({ id: newId('evalCase'), question: c.question, answer: c.answer ?? null, documents: c.documents ?? [], pages: c.pages ?? [], answerable: c.answerable ?? true }));
}

type Kb = { id: KbId; org_id: ServiceContext['org']['id']; embedding_model: string | null; eval_settings: { top_k?: number } | null };

async function insertRun(
  deps: Pick<AppDeps, 'db' | 'jobs' | 'models'>,
  kb: Kb,
  opts: { trigger: EvalRunTrigger; cases: EvalRunCase[]; topK?: number | undefined; enqueue: boolean },
) {
  const settings = {
    top_k: opts.topK ?? kb.eval_settings?.top_k ?? 5,
    answer_model: deps.models.answerModel.modelId,
    embedding_model: kb.embedding_model,
    judge: deps.models.judgeModel !== undefined,
  };
  return deps.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('eval_runs')
      .values({
        id: newId('evalRun'),
        org_id: kb.org_id,
        kb_id: kb.id,
        trigger: opts.trigger,
        progress_total: opts.cases.length,
        settings: JSON.stringify(settings),
        cases: JSON.stringify(opts.cases),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (opts.enqueue) await deps.jobs.enqueue(trx, 'evals__run', { run_id: row.id }, { queueName: evalQueue(kb.id), maxAttempts: 3 });
    return row;
  });
}

export async function startEvalRun(ctx: ServiceContext, raw: StartEvalRunInput): Promise<{ run: EvalRunDto }> {
  authorize(ctx, 'eval.write');
  const input = parseInput(ZStartEvalRunInput, raw);
  const kb = await requireKb(ctx, input.kb_id);
  const cases = await storedCases(ctx.db, kb.id);
  if (cases.length === 0) throw new AppError('invalid_input', 'The knowledge base has no eval cases to run; add or import some first', { field: 'kb_id' });
  const run = await insertRun(ctx, kb, { trigger: 'manual', cases, topK: input.top_k, enqueue: true });
  await recordAudit(ctx, { action: 'eval_run.start', targetType: 'eval_run', targetId: run.id, changes: { kb_id: kb.id, cases: cases.length } });
  return { run: toEvalRunDto(run) };
}

/**
 * A run whose job the caller executes itself (the CLI runs it inline, then prints it): the KB's
 * stored cases, or the cases of a file.
 */
export async function createInlineEvalRun(
  ctx: ServiceContext,
  input: { kb_id: string; cases?: EvalRunCase[]; top_k?: number },
): Promise<{ runId: EvalRunId }> {
  const kb = await requireKb(ctx, input.kb_id);
  const cases = input.cases ?? (await storedCases(ctx.db, kb.id));
  if (cases.length === 0) throw new AppError('invalid_input', 'No eval cases to run: the knowledge base has none and no file was given', { field: 'kb_id' });
  const row = await insertRun(ctx, kb, { trigger: 'cli', cases, topK: input.top_k, enqueue: false });
  return { runId: row.id };
}

/** The automatic run after a change to what the KB retrieves; null when none starts. */
export async function startAutomaticEvalRun(
  deps: Pick<AppDeps, 'db' | 'jobs' | 'models' | 'logger'>,
  kbId: KbId,
  trigger: Exclude<EvalRunTrigger, 'manual' | 'cli'>,
): Promise<EvalRunId | null> {
  const kb = await deps.db.selectFrom('knowledge_bases').select(['id', 'org_id', 'embedding_model', 'eval_settings']).where('id', '=', kbId).executeTakeFirst();
  if (!kb) return null;
  const queued = await deps.db.selectFrom('eval_runs').select('id').where('kb_id', '=', kbId).where('status', '=', 'queued').executeTakeFirst();
  if (queued) return null;
  const cases = await storedCases(deps.db, kbId);
  if (cases.length === 0) return null;
  const row = await insertRun(deps, kb, { trigger, cases, enqueue: true });
  deps.logger.info({ kbId, runId: row.id, trigger }, 'eval run started automatically');
  return row.id;
}
