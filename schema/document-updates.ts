/**
 * Document changes as a GraphQL subscription (served over SSE by yoga): the dashboard's live
 * status badges and progress bars, without re-reading pages of documents.
 */
import { watchDocuments } from '../src/services/documents/watch-documents';
import type { DocumentDto } from '../src/services/documents/document-dto';
import { builder } from './builder';
import { DocumentRef } from './document';

builder.subscriptionFields((t) => ({
  documentUpdates: t.field({
    type: [DocumentRef],
    description:
      "A knowledge base's documents whose status, stage or progress changed, as they change (checked twice a second): processing documents while they progress, then once more as ready or failed. Completes when none is processing (at once if none was).",
    args: { kbId: t.arg.id({ required: true }) },
    // An async function (not a generator): an unknown KB is an ordinary GraphQL error.
    subscribe: async (_r, { kbId }, ctx) => {
      const abort = new AbortController();
      ctx.request.signal?.addEventListener('abort', () => abort.abort());
      const changes = await watchDocuments(await ctx.auth(), String(kbId), abort.signal);
      async function* stream(): AsyncGenerator<DocumentDto[]> {
        try {
          yield* changes;
        } finally {
          // The client went away (yoga returns the iterator): stop reading.
          abort.abort();
        }
      }
      return stream() as AsyncIterable<never>;
    },
    resolve: (documents: DocumentDto[]) => documents,
  }),
}));
