/** Curated answers (src/services/annotations/): listed per KB, given, edited, switched and deleted. */
import type { AnnotationDto } from '../src/services/annotations/annotation-dto';
import { createAnnotation } from '../src/services/annotations/create-annotation';
import { deleteAnnotation } from '../src/services/annotations/delete-annotation';
import { listAnnotations } from '../src/services/annotations/list-annotations';
import { updateAnnotation } from '../src/services/annotations/update-annotation';
import { builder } from './builder';

export const AnnotationRef = builder.objectRef<AnnotationDto>('Annotation').implement({
  description: 'A curated answer: an enabled one answers the questions of its KB that match its question, before retrieval',
  fields: (t) => ({
    id: t.exposeID('id'),
    kbId: t.exposeID('kb_id'),
    question: t.exposeString('question'),
    answer: t.exposeString('answer'),
    enabled: t.exposeBoolean('enabled'),
    createdBy: t.exposeString('created_by', { description: 'Who gave it, as the audit log names them' }),
    createdAt: t.field({ type: 'DateTime', resolve: (a) => a.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (a) => a.updated_at }),
  }),
});

const AnnotationFromEnum = builder.enumType('AnnotationFrom', {
  description: 'Where the curated answer was given: directly, on a conversation turn, or on an Unanswered group',
  values: ['manual', 'conversation', 'unanswered'] as const,
});

builder.queryFields((t) => ({
  annotations: t.field({
    type: [AnnotationRef],
    description: "A KB's curated answers, newest first",
    args: { kbId: t.arg.id({ required: true }) },
    resolve: async (_root, { kbId }, ctx) => (await listAnnotations(await ctx.auth(), { kb_id: String(kbId) })).annotations,
  }),
}));

builder.mutationFields((t) => ({
  createAnnotation: t.field({
    type: AnnotationRef,
    description: 'Give the right answer to a question: it answers matching questions of the KB first, on every transport',
    args: {
      kbId: t.arg.id({ required: true }),
      question: t.arg.string({ required: true }),
      answer: t.arg.string({ required: true }),
      enabled: t.arg.boolean(),
      from: t.arg({ type: AnnotationFromEnum }),
      messageId: t.arg.id({ description: 'The conversation turn it corrects' }),
    },
    resolve: async (_root, a, ctx) =>
      (
        await createAnnotation(await ctx.auth(), {
          kb_id: String(a.kbId),
          question: a.question,
          answer: a.answer,
          ...(a.enabled != null ? { enabled: a.enabled } : {}),
          ...(a.from ? { from: a.from } : {}),
          ...(a.messageId ? { message_id: String(a.messageId) } : {}),
        })
      ).annotation,
  }),
  updateAnnotation: t.field({
    type: AnnotationRef,
    description: 'Edit a curated answer or switch it on or off; arguments left out keep their value',
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }), question: t.arg.string(), answer: t.arg.string(), enabled: t.arg.boolean() },
    resolve: async (_root, a, ctx) =>
      (
        await updateAnnotation(await ctx.auth(), {
          kb_id: String(a.kbId),
          id: String(a.id),
          ...(a.question != null ? { question: a.question } : {}),
          ...(a.answer != null ? { answer: a.answer } : {}),
          ...(a.enabled != null ? { enabled: a.enabled } : {}),
        })
      ).annotation,
  }),
  deleteAnnotation: t.field({
    type: builder.objectRef<{ deleted: boolean; id: string }>('DeleteAnnotationResult').implement({ fields: (f) => ({ deleted: f.exposeBoolean('deleted'), id: f.exposeID('id') }) }),
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, { kbId, id }, ctx) => deleteAnnotation(await ctx.auth(), { kb_id: String(kbId), id: String(id) }),
  }),
}));
