/** A KB's curated answers, newest first. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { authorize } from '../access/roles';
import { requireKb } from '../kbs/require-kb';
import { toAnnotationDto, type AnnotationDto } from './annotation-dto';

export const MAX_ANNOTATIONS_LISTED = 500;
export const ZListAnnotationsInput = z.object({ kb_id: z.string().min(1) }).strict();

export async function listAnnotations(ctx: ServiceContext, raw: z.input<typeof ZListAnnotationsInput>): Promise<{ annotations: AnnotationDto[] }> {
  authorize(ctx, 'content.read');
  const input = parseInput(ZListAnnotationsInput, raw);
  const kb = await requireKb(ctx, input.kb_id);
  const rows = await ctx.db
    .selectFrom('annotations')
    .select(['id', 'kb_id', 'question', 'answer', 'enabled', 'created_by', 'created_at', 'updated_at'])
    .where('kb_id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_ANNOTATIONS_LISTED)
    .execute();
  return { annotations: rows.map(toAnnotationDto) };
}
