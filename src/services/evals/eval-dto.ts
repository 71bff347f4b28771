/** The shapes eval cases, runs and results take on every transport (REST, GraphQL, tRPC, CLI). */
import { z } from 'zod';
import type { EvalCaseRow, EvalResultRow, EvalRunRow } from '../../../db/types';
import { MAX_QUERY_CHARS } from '../rag/search';

export const EVAL_CASE_SOURCES = ['sandbox', 'conversation', 'unanswered', 'manual', 'import'] as const;
/** Cases a KB holds at most: a run asks each one through the answer path. */
export const MAX_EVAL_CASES = 1000;

/** What a case expects, as clients send it (create, update, import). */
export const ZEvalCaseFields = z.object({
  question: z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS),
  answer: z.string().trim().max(2000).nullable().optional().describe('Text or figure a good answer contains'),
  documents: z.array(z.string().trim().min(1).max(2000)).max(20).optional().describe('File names (or page URLs) one of which should be retrieved'),
  pages: z.array(z.number().int().min(1)).max(50).optional().describe('Pages (of those documents) one of which should be retrieved'),
  answerable: z.boolean().optional().describe('false: the KB does not hold the answer, and a good answer refuses'),
});

export const ZEvalCase = z.object({
  id: z.string(),
  kb_id: z.string(),
  question: z.string(),
  answer: z.string().nullable(),
  documents: z.array(z.string()),
  pages: z.array(z.number().int()),
  answerable: z.boolean(),
  source: z.enum(EVAL_CASE_SOURCES),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EvalCaseDto = z.infer<typeof ZEvalCase>;

export function toEvalCaseDto(row: EvalCaseRow): EvalCaseDto {
  return {
    id: row.id,
    kb_id: row.kb_id,
    question: row.question,
    answer: row.expected_answer,
    documents: row.expected_documents,
    pages: row.expected_pages,
    answerable: row.answerable,
    source: row.source,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const figure = z.number().nullable();
export const ZEvalSummary = z.object({
  cases: z.number().int(),
  hit_at_1: figure.describe('Answerable cases with expected documents whose document ranks first'),
  hit_at_k: figure.describe('... whose document is among the top k retrieved'),
  page_hit_at_1: figure,
  page_hit_at_k: figure,
  answer_contains: figure.describe('Answerable cases with an expected answer whose answer contains it'),
  refusal_precision: figure.describe('Refused cases that are not answerable'),
  refusal_recall: figure.describe('Not answerable cases that were refused'),
  judge_pass: figure.describe('Judged cases the judge model passed (with OPENAI_API_KEY)'),
  latency_p50_ms: figure,
  latency_p95_ms: figure,
  errors: z.number().int(),
});

export const ZEvalRun = z.object({
  id: z.string(),
  kb_id: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  trigger: z.enum(['manual', 'reindex', 'recrawl', 'reingest', 'settings', 'cli']),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  settings: z.object({ top_k: z.number().int(), answer_model: z.string(), embedding_model: z.string().nullable(), judge: z.boolean() }),
  summary: ZEvalSummary.nullable(),
  regression: z
    .object({
      flagged: z.boolean(),
      previous_run_id: z.string(),
      threshold: z.number(),
      drops: z.record(z.string(), z.tuple([z.number(), z.number()])),
      webhook: z.enum(['none', 'queued', 'delivered', 'failed']),
    })
    .nullable()
    .describe('Against the previous completed run; flagged when a figure dropped by more than the threshold'),
  error: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type EvalRunDto = z.infer<typeof ZEvalRun>;

export function toEvalRunDto(row: EvalRunRow): EvalRunDto {
  return {
    id: row.id,
    kb_id: row.kb_id,
    status: row.status,
    trigger: row.trigger,
    progress: { done: row.progress_done, total: row.progress_total },
    settings: row.settings,
    summary: row.summary,
    regression: row.regression,
    error: row.error,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}

export const ZEvalResult = z.object({
  case_id: z.string(),
  position: z.number().int(),
  question: z.string(),
  expected: z.object({ answer: z.string().nullable(), documents: z.array(z.string()), pages: z.array(z.number().int()), answerable: z.boolean() }),
  passages: z.array(
    z.object({ rank: z.number().int(), document_id: z.string(), document_name: z.string(), page: z.number().int().nullable(), url: z.string().nullable(), score: z.number() }),
  ),
  doc_hit_rank: z.number().int().nullable(),
  page_hit_rank: z.number().int().nullable(),
  answer: z.string(),
  answer_contains: z.boolean().nullable(),
  refused: z.boolean(),
  latency_ms: z.number().int(),
  judge: z.enum(['pass', 'fail', 'error']).nullable(),
  judge_note: z.string().nullable(),
  error: z.string().nullable(),
});
export type EvalResultDto = z.infer<typeof ZEvalResult>;

export function toEvalResultDto(row: EvalResultRow): EvalResultDto {
  return {
    case_id: row.case_id,
    position: row.position,
    question: row.question,
    expected: row.expected,
    passages: row.passages,
    doc_hit_rank: row.doc_hit_rank,
    page_hit_rank: row.page_hit_rank,
    answer: row.answer,
    answer_contains: row.answer_contains,
    refused: row.refused,
    latency_ms: row.latency_ms,
    judge: row.judge,
    judge_note: row.judge_note,
    error: row.error,
  };
}
