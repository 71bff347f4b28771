/** A KB's eval cases, runs, their results and comparison (src/services/evals/), for the dashboard's Evals view and API clients. */
import { compareEvalRuns, type EvalComparison } from '../src/services/evals/compare-eval-runs';
import { createEvalCase } from '../src/services/evals/create-eval-case';
import { deleteEvalCase } from '../src/services/evals/delete-eval-case';
import { EVAL_CASE_SOURCES, type EvalCaseDto, type EvalResultDto, type EvalRunDto } from '../src/services/evals/eval-dto';
import { getEvalSettings, updateEvalSettings, type EvalSettingsDto } from '../src/services/evals/eval-settings';
import { exportEvalCases } from '../src/services/evals/export-eval-cases';
import { importEvalCases } from '../src/services/evals/import-eval-cases';
import { listEvalCases } from '../src/services/evals/list-eval-cases';
import { getEvalRun, listEvalRuns } from '../src/services/evals/list-eval-runs';
import { startEvalRun } from '../src/services/evals/start-eval-run';
import { updateEvalCase } from '../src/services/evals/update-eval-case';
import { builder } from './builder';

const EvalCaseSourceEnum = builder.enumType('EvalCaseSource', { values: EVAL_CASE_SOURCES });
const EvalRunStatusEnum = builder.enumType('EvalRunStatus', { values: ['queued', 'running', 'completed', 'failed'] as const });
const EvalRunTriggerEnum = builder.enumType('EvalRunTrigger', { values: ['manual', 'reindex', 'recrawl', 'reingest', 'settings', 'cli'] as const });
const EvalFileFormatEnum = builder.enumType('EvalFileFormat', { values: ['jsonl', 'csv'] as const });
const EvalJudgeEnum = builder.enumType('EvalJudgeVerdict', { values: ['pass', 'fail', 'error'] as const });
const EvalCaseChangeEnum = builder.enumType('EvalCaseChange', { values: ['better', 'worse', 'same', 'added', 'removed'] as const });

const EvalCaseRef = builder.objectRef<EvalCaseDto>('EvalCase').implement({
  description: 'A test case: a question and what a good answer is, or that the KB cannot answer it',
  fields: (t) => ({
    id: t.exposeID('id'),
    kbId: t.exposeID('kb_id'),
    question: t.exposeString('question'),
    answer: t.exposeString('answer', { nullable: true, description: 'Text or figure a good answer contains' }),
    documents: t.exposeStringList('documents', { description: 'File names (or page URLs) one of which should be retrieved' }),
    pages: t.exposeIntList('pages'),
    answerable: t.exposeBoolean('answerable'),
    source: t.field({ type: EvalCaseSourceEnum, resolve: (c) => c.source }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.created_at }),
  }),
});

type Summary = NonNullable<EvalRunDto['summary']>;
const EvalSummaryRef = builder.objectRef<Summary>('EvalSummary').implement({
  description: 'A run\'s figures (0..1, null when no case applies); see docs/evals.md for what each one counts',
  fields: (t) => ({
    cases: t.exposeInt('cases'),
    hitAt1: t.exposeFloat('hit_at_1', { nullable: true }),
    hitAtK: t.exposeFloat('hit_at_k', { nullable: true }),
    pageHitAt1: t.exposeFloat('page_hit_at_1', { nullable: true }),
    pageHitAtK: t.exposeFloat('page_hit_at_k', { nullable: true }),
    answerContains: t.exposeFloat('answer_contains', { nullable: true }),
    refusalPrecision: t.exposeFloat('refusal_precision', { nullable: true }),
    refusalRecall: t.exposeFloat('refusal_recall', { nullable: true }),
    judgePass: t.exposeFloat('judge_pass', { nullable: true }),
    latencyP50Ms: t.exposeFloat('latency_p50_ms', { nullable: true }),
    latencyP95Ms: t.exposeFloat('latency_p95_ms', { nullable: true }),
    errors: t.exposeInt('errors'),
  }),
});

type Drop = { figure: string; before: number; after: number };
const EvalDropRef = builder.objectRef<Drop>('EvalFigureDrop').implement({
  fields: (t) => ({ figure: t.exposeString('figure'), before: t.exposeFloat('before'), after: t.exposeFloat('after') }),
});

type Regression = NonNullable<EvalRunDto['regression']>;
const EvalRegressionRef = builder.objectRef<Regression>('EvalRegression').implement({
  description: 'The run against the previous completed run of its KB',
  fields: (t) => ({
    flagged: t.exposeBoolean('flagged', { description: 'A figure dropped by more than the threshold' }),
    previousRunId: t.exposeID('previous_run_id'),
    threshold: t.exposeFloat('threshold'),
    drops: t.field({ type: [EvalDropRef], resolve: (r) => Object.entries(r.drops).map(([figure, [before, after]]) => ({ figure, before, after })) }),
    webhook: t.exposeString('webhook', { description: 'none, queued, delivered or failed' }),
  }),
});

const EvalPassageRef = builder.objectRef<EvalResultDto['passages'][number]>('EvalPassage').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    documentId: t.exposeID('document_id'),
    documentName: t.exposeString('document_name'),
    page: t.exposeInt('page', { nullable: true }),
    url: t.exposeString('url', { nullable: true }),
    score: t.exposeFloat('score'),
  }),
});

const EvalResultRef = builder.objectRef<EvalResultDto>('EvalResult').implement({
  description: 'One case as a run asked it',
  fields: (t) => ({
    caseId: t.exposeID('case_id'),
    position: t.exposeInt('position'),
    question: t.exposeString('question'),
    expectedAnswer: t.string({ nullable: true, resolve: (r) => r.expected.answer }),
    expectedDocuments: t.stringList({ resolve: (r) => r.expected.documents }),
    answerable: t.boolean({ resolve: (r) => r.expected.answerable }),
    passages: t.field({ type: [EvalPassageRef], resolve: (r) => r.passages }),
    docHitRank: t.exposeInt('doc_hit_rank', { nullable: true }),
    pageHitRank: t.exposeInt('page_hit_rank', { nullable: true }),
    answer: t.exposeString('answer'),
    answerContains: t.exposeBoolean('answer_contains', { nullable: true }),
    refused: t.exposeBoolean('refused'),
    latencyMs: t.exposeInt('latency_ms'),
    judge: t.field({ type: EvalJudgeEnum, nullable: true, resolve: (r) => r.judge }),
    judgeNote: t.exposeString('judge_note', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const EvalRunRef = builder.objectRef<EvalRunDto>('EvalRun').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    kbId: t.exposeID('kb_id'),
    status: t.field({ type: EvalRunStatusEnum, resolve: (r) => r.status }),
    trigger: t.field({ type: EvalRunTriggerEnum, resolve: (r) => r.trigger }),
    done: t.int({ resolve: (r) => r.progress.done }),
    total: t.int({ resolve: (r) => r.progress.total }),
    topK: t.int({ resolve: (r) => r.settings.top_k }),
    answerModel: t.string({ resolve: (r) => r.settings.answer_model }),
    summary: t.field({ type: EvalSummaryRef, nullable: true, resolve: (r) => r.summary }),
    regression: t.field({ type: EvalRegressionRef, nullable: true, resolve: (r) => r.regression }),
    error: t.exposeString('error', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.created_at }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.finished_at }),
    results: t.field({
      type: [EvalResultRef],
      description: 'Per case, in the order asked',
      resolve: async (r, _a, ctx) => (await getEvalRun(await ctx.auth(), { kb_id: r.kb_id, id: r.id })).results,
    }),
  }),
});

type CaseChange = EvalComparison['cases'][number];
const EvalCaseComparisonRef = builder.objectRef<CaseChange>('EvalCaseComparison').implement({
  fields: (t) => ({
    caseId: t.exposeID('case_id'),
    question: t.exposeString('question'),
    change: t.field({ type: EvalCaseChangeEnum, resolve: (c) => c.change }),
    base: t.field({ type: EvalResultRef, nullable: true, resolve: (c) => c.base }),
    run: t.field({ type: EvalResultRef, nullable: true, resolve: (c) => c.run }),
  }),
});

const EvalComparisonRef = builder.objectRef<EvalComparison>('EvalComparison').implement({
  fields: (t) => ({
    base: t.field({ type: EvalRunRef, resolve: (c) => c.base }),
    run: t.field({ type: EvalRunRef, resolve: (c) => c.run }),
    better: t.int({ resolve: (c) => c.counts.better }),
    worse: t.int({ resolve: (c) => c.counts.worse }),
    same: t.int({ resolve: (c) => c.counts.same }),
    cases: t.field({ type: [EvalCaseComparisonRef], resolve: (c) => c.cases }),
  }),
});

const EvalSettingsRef = builder.objectRef<EvalSettingsDto>('EvalSettings').implement({
  fields: (t) => ({
    kbId: t.exposeID('kb_id'),
    topK: t.exposeInt('top_k'),
    webhookUrl: t.exposeString('webhook_url', { nullable: true }),
    webhookSecret: t.exposeString('webhook_secret', { nullable: true, description: 'Signs each webhook request (x-groundwork-signature)' }),
  }),
});

const EvalDeleteResult = builder.objectRef<{ success: boolean }>('EvalDeleteResult').implement({ fields: (t) => ({ success: t.exposeBoolean('success') }) });
const EvalImportResult = builder.objectRef<{ imported: number; cases: EvalCaseDto[] }>('EvalImportResult').implement({
  fields: (t) => ({ imported: t.exposeInt('imported'), cases: t.field({ type: [EvalCaseRef], resolve: (r) => r.cases }) }),
});

const EvalCaseInput = builder.inputType('EvalCaseInput', {
  fields: (t) => ({
    kbId: t.id({ required: true }),
    question: t.string(),
    answer: t.string(),
    documents: t.stringList(),
    pages: t.intList(),
    answerable: t.boolean(),
    source: t.field({ type: EvalCaseSourceEnum }),
    messageId: t.id({ description: 'A question asked in one of the KB\'s conversations' }),
  }),
});

const UpdateEvalCaseInput = builder.inputType('UpdateEvalCaseInput', {
  fields: (t) => ({
    kbId: t.id({ required: true }),
    id: t.id({ required: true }),
    question: t.string(),
    answer: t.string({ description: 'null clears it' }),
    documents: t.stringList(),
    pages: t.intList(),
    answerable: t.boolean(),
  }),
});

/** GraphQL's absent and null arguments, as the services' optional fields. */
const defined = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as { [K in keyof T]?: NonNullable<T[K]> };

builder.queryFields((t) => ({
  evalCases: t.field({
    type: [EvalCaseRef],
    description: "A KB's eval cases (its test set), oldest first",
    args: { kbId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => (await listEvalCases(await ctx.auth(), { kb_id: String(a.kbId) })).cases,
  }),
  evalRuns: t.field({
    type: [EvalRunRef],
    description: "A KB's eval runs, newest first",
    args: { kbId: t.arg.id({ required: true }), first: t.arg.int({ defaultValue: 50 }) },
    resolve: async (_r, a, ctx) => (await listEvalRuns(await ctx.auth(), { kb_id: String(a.kbId), limit: a.first ?? 50 })).runs,
  }),
  evalRun: t.field({
    type: EvalRunRef,
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => (await getEvalRun(await ctx.auth(), { kb_id: String(a.kbId), id: String(a.id) })).run,
  }),
  evalComparison: t.field({
    type: EvalComparisonRef,
    description: 'A run compared case by case with another (default: the completed run before it)',
    args: { kbId: t.arg.id({ required: true }), runId: t.arg.id({ required: true }), baseId: t.arg.id() },
    resolve: async (_r, a, ctx) =>
      compareEvalRuns(await ctx.auth(), { kb_id: String(a.kbId), run_id: String(a.runId), ...(a.baseId != null ? { base_id: String(a.baseId) } : {}) }),
  }),
  evalSettings: t.field({
    type: EvalSettingsRef,
    args: { kbId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => (await getEvalSettings(await ctx.auth(), { kb_id: String(a.kbId) })).settings,
  }),
  evalExport: t.string({
    description: 'The eval cases as a JSONL or CSV file',
    args: { kbId: t.arg.id({ required: true }), format: t.arg({ type: EvalFileFormatEnum, defaultValue: 'jsonl' }) },
    resolve: async (_r, a, ctx) => (await exportEvalCases(await ctx.auth(), { kb_id: String(a.kbId), format: a.format ?? 'jsonl' })).content,
  }),
}));

builder.mutationFields((t) => ({
  createEvalCase: t.field({
    type: EvalCaseRef,
    args: { input: t.arg({ type: EvalCaseInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const { kbId, messageId, ...rest } = input;
      return (
        await createEvalCase(await ctx.auth(), {
          kb_id: String(kbId),
          ...defined({ ...rest, message_id: messageId == null ? undefined : String(messageId) }),
        })
      ).case;
    },
  }),
  updateEvalCase: t.field({
    type: EvalCaseRef,
    args: { input: t.arg({ type: UpdateEvalCaseInput, required: true }) },
    resolve: async (_r, { input }, ctx) => {
      const { kbId, id, answer, ...rest } = input;
      return (await updateEvalCase(await ctx.auth(), { kb_id: String(kbId), id: String(id), ...defined(rest), ...(answer !== undefined ? { answer } : {}) })).case;
    },
  }),
  deleteEvalCase: t.field({
    type: EvalDeleteResult,
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => deleteEvalCase(await ctx.auth(), { kb_id: String(a.kbId), id: String(a.id) }),
  }),
  importEvalCases: t.field({
    type: EvalImportResult,
    description: 'Import cases from JSONL or CSV, all or none; `replace` swaps the whole set',
    args: {
      kbId: t.arg.id({ required: true }),
      content: t.arg.string({ required: true }),
      format: t.arg({ type: EvalFileFormatEnum, defaultValue: 'jsonl' }),
      replace: t.arg.boolean({ defaultValue: false }),
    },
    resolve: async (_r, a, ctx) => importEvalCases(await ctx.auth(), { kb_id: String(a.kbId), content: a.content, format: a.format ?? 'jsonl', replace: a.replace ?? false }),
  }),
  startEvalRun: t.field({
    type: EvalRunRef,
    description: 'Run the test set in the background; poll evalRun for progress and figures',
    args: { kbId: t.arg.id({ required: true }), topK: t.arg.int({ description: "Overrides the KB's eval top_k for this run" }) },
    resolve: async (_r, a, ctx) => (await startEvalRun(await ctx.auth(), { kb_id: String(a.kbId), ...(a.topK != null ? { top_k: a.topK } : {}) })).run,
  }),
  updateEvalSettings: t.field({
    type: EvalSettingsRef,
    args: { kbId: t.arg.id({ required: true }), topK: t.arg.int(), webhookUrl: t.arg.string({ description: 'Empty string: no webhook' }) },
    resolve: async (_r, a, ctx) =>
      (
        await updateEvalSettings(await ctx.auth(), {
          kb_id: String(a.kbId),
          ...(a.topK != null ? { top_k: a.topK } : {}),
          ...(a.webhookUrl != null ? { webhook_url: a.webhookUrl === '' ? null : a.webhookUrl } : {}),
        })
      ).settings,
  }),
}));
