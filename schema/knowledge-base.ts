import { createKb } from '../src/services/kbs/create-kb';
import { deleteKb } from '../src/services/kbs/delete-kb';
import { getKb } from '../src/services/kbs/get-kb';
import type { KbDto } from '../src/services/kbs/kb-dto';
import { listKbs } from '../src/services/kbs/list-kbs';
import { updateKb } from '../src/services/kbs/update-kb';
import { listDocuments } from '../src/services/documents/list-documents';
import { builder } from './builder';
import { DocumentRef } from './document';

export const KnowledgeBaseRef = builder.objectRef<KbDto>('KnowledgeBase').implement({
  description: 'A collection of documents the assistant answers from',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    docCount: t.exposeInt('doc_count'),
    widgetEnabled: t.exposeBoolean('widget_enabled', { description: 'Whether the embeddable widget may answer from this KB' }),
    createdAt: t.field({ type: 'DateTime', resolve: (kb) => kb.created_at }),
    documents: t.field({
      type: [DocumentRef],
      resolve: async (kb, _args, ctx) => (await listDocuments(await ctx.auth(), { kb_id: kb.id })).documents,
    }),
  }),
});

const DeleteResult = builder.objectRef<{ success: boolean }>('DeleteResult').implement({
  fields: (t) => ({ success: t.exposeBoolean('success') }),
});

const CreateKnowledgeBaseInput = builder.inputType('CreateKnowledgeBaseInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
  }),
});

const UpdateKnowledgeBaseInput = builder.inputType('UpdateKnowledgeBaseInput', {
  fields: (t) => ({
    id: t.id({ required: true }),
    name: t.string(),
    description: t.string(),
    widgetEnabled: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  knowledgeBases: t.field({
    type: [KnowledgeBaseRef],
    resolve: async (_root, _args, ctx) => (await listKbs(await ctx.auth())).kbs,
  }),
  knowledgeBase: t.field({
    type: KnowledgeBaseRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => (await getKb(await ctx.auth(), { id: String(id) })).kb,
  }),
}));

builder.mutationFields((t) => ({
  createKnowledgeBase: t.field({
    type: KnowledgeBaseRef,
    args: { input: t.arg({ type: CreateKnowledgeBaseInput, required: true }) },
    resolve: async (_root, { input }, ctx) =>
      (await createKb(await ctx.auth(), { name: input.name, ...(input.description != null ? { description: input.description } : {}) })).kb,
  }),
  updateKnowledgeBase: t.field({
    type: KnowledgeBaseRef,
    args: { input: t.arg({ type: UpdateKnowledgeBaseInput, required: true }) },
    resolve: async (_root, { input }, ctx) =>
      (
        await updateKb(await ctx.auth(), {
          id: String(input.id),
          ...(input.name != null ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.widgetEnabled != null ? { widget_enabled: input.widgetEnabled } : {}),
        })
      ).kb,
  }),
  deleteKnowledgeBase: t.field({
    type: DeleteResult,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => deleteKb(await ctx.auth(), { id: String(id) }),
  }),
}));
