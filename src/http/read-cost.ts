/**
 * Reads priced by the work they do, before they run (issue 44): the bytes a read will return,
 * estimated from the requested page sizes multiplied through the nesting and each text field
 * weighted by the organisation's own average chunk length. Over READ_BUDGET_BYTES the read is
 * refused before it starts; under it, it costs one rate-limit point per BYTES_PER_POINT. A tRPC batch
 * is priced as one request: the sum of its calls. GraphQL uses the same budget (src/graphql/limits.ts).
 */
import { AppError } from '../errors';
import { MAX_DOCUMENT_PAGE } from '../services/documents/list-documents';

export const READ_BUDGET_BYTES = 4 * 1024 * 1024;
export const BYTES_PER_POINT = 64 * 1024;
/** A row's fields other than its long text (ids, names, dates, JSON punctuation). */
export const ROW_BYTES = 200;

export function readPoints(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / BYTES_PER_POINT));
}

export function assertWithinReadBudget(bytes: number, how: string): void {
  if (bytes <= READ_BUDGET_BYTES) return;
  const mb = (n: number) => (n / 1048576).toFixed(1);
  throw new AppError(
    'invalid_input',
    `The request would read about ${mb(bytes)} MB (${how}); at most ${mb(READ_BUDGET_BYTES)} MB are read in one request: ask for fewer items or fields, or split it`,
    { field: 'limit' },
  );
}

/** Rows each tRPC read may return (its `limit`, or the service's default) and whether they carry chunk text. */
const TRPC_READS: Record<string, { limit: number; max: number; text: boolean }> = {
  'documents.chunks': { limit: 50, max: 200, text: true },
  // Without a limit every document is listed: assumed 50, as GraphQL's KnowledgeBase.documents is.
  'documents.list': { limit: 50, max: MAX_DOCUMENT_PAGE, text: false },
  'chat.conversations': { limit: 20, max: 100, text: false },
};

export type TrpcCall = { path: string; input: unknown };

/** The bytes a batch of tRPC calls may return, each read at its requested size. */
export function priceTrpcCalls(calls: TrpcCall[], chunkChars: number): number {
  let bytes = 0;
  for (const call of calls) {
    const read = TRPC_READS[call.path];
    if (!read) {
      bytes += ROW_BYTES * 10;
      continue;
    }
    const asked = Number((call.input as { limit?: unknown } | null)?.limit ?? read.limit);
    const rows = Number.isFinite(asked) ? Math.min(Math.max(1, asked), read.max) : read.limit;
    bytes += rows * (ROW_BYTES + (read.text ? chunkChars : 0));
  }
  return bytes;
}
