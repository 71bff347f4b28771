/** A KB's test set as a JSONL or CSV file that import reads back unchanged. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { EVAL_FILE_FORMATS, printEvalCases, type EvalFileFormat } from './eval-case-format';
import { listEvalCases } from './list-eval-cases';
import { authorize } from '../access/roles';

export const ZExportEvalCasesInput = z.object({ kb_id: z.string().min(1), format: z.enum(EVAL_FILE_FORMATS).default('jsonl') }).strict();

export const EVAL_FILE_CONTENT_TYPES: Record<EvalFileFormat, string> = { jsonl: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8' };

export async function exportEvalCases(ctx: ServiceContext, raw: z.input<typeof ZExportEvalCasesInput>): Promise<{ format: EvalFileFormat; content: string }> {
  authorize(ctx, 'content.read');
  const { kb_id, format } = parseInput(ZExportEvalCasesInput, raw);
  const { cases } = await listEvalCases(ctx, { kb_id });
  return { format, content: printEvalCases(format, cases) };
}
