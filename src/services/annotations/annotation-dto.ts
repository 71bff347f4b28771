/**
 * A curated answer as every transport returns it, and the lookup every annotation service starts
 * from: an annotation of another organisation, or of another KB than the one named, is "not
 * found", exactly like one that never existed.
 */
import { z } from 'zod';
import type { AnnotationRow } from '../../../db/types';
import type { ServiceContext } from '../../context';
import { notFound } from '../../errors';
import { isIdOf, type AnnotationId } from '../../ids';
import { requireKb } from '../kbs/require-kb';

export const MAX_ANNOTATION_QUESTION_CHARS = 1000;
export const MAX_ANNOTATION_ANSWER_CHARS = 8000;

export const ZAnnotationFields = z.object({
  question: z.string().trim().min(1, 'must not be empty').max(MAX_ANNOTATION_QUESTION_CHARS),
  answer: z.string().trim().min(1, 'must not be empty').max(MAX_ANNOTATION_ANSWER_CHARS),
  enabled: z.boolean(),
});

export type AnnotationDto = {
  id: AnnotationId;
  kb_id: string;
  question: string;
  answer: string;
  enabled: boolean;
  created_by: string;
  created_at: string;
  updated_at: string;
};

export function toAnnotationDto(r: Pick<AnnotationRow, 'id' | 'kb_id' | 'question' | 'answer' | 'enabled' | 'created_by' | 'created_at' | 'updated_at'>): AnnotationDto {
  return {
    id: r.id,
    kb_id: r.kb_id,
    question: r.question,
    answer: r.answer,
    enabled: r.enabled,
    created_by: r.created_by,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

export const ZAnnotationRef = z.object({ kb_id: z.string().min(1), id: z.string().min(1) }).strict();

export async function requireAnnotation(ctx: ServiceContext, kbId: string, id: string) {
  const kb = await requireKb(ctx, kbId);
  if (!isIdOf('annotation', id)) throw notFound('Annotation');
  const row = await ctx.db
    .selectFrom('annotations')
    .selectAll()
    .where('id', '=', id as AnnotationId)
    .where('kb_id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .executeTakeFirst();
  if (!row) throw notFound('Annotation');
  return { kb, row };
}
