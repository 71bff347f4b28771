/** The tRPC router: the same services as REST and GraphQL, grouped by domain. */
import { listDocuments, ZListDocumentsInput } from '../services/documents/list-documents';
import { createKb, ZCreateKbInput } from '../services/kbs/create-kb';
import { deleteKb } from '../services/kbs/delete-kb';
import { getKb, ZKbRef } from '../services/kbs/get-kb';
import { listKbs } from '../services/kbs/list-kbs';
import { updateKb, ZUpdateKbInput } from '../services/kbs/update-kb';
import { authedProcedure, router } from './init';

export const appRouter = router({
  kbs: router({
    list: authedProcedure.query(({ ctx }) => listKbs(ctx.svc)),
    get: authedProcedure.input(ZKbRef).query(({ ctx, input }) => getKb(ctx.svc, input)),
    create: authedProcedure.input(ZCreateKbInput).mutation(({ ctx, input }) => createKb(ctx.svc, input)),
    update: authedProcedure.input(ZUpdateKbInput).mutation(({ ctx, input }) => updateKb(ctx.svc, input)),
    delete: authedProcedure.input(ZKbRef).mutation(({ ctx, input }) => deleteKb(ctx.svc, input)),
  }),
  documents: router({
    list: authedProcedure.input(ZListDocumentsInput).query(({ ctx, input }) => listDocuments(ctx.svc, input)),
  }),
});

export type AppRouter = typeof appRouter;
