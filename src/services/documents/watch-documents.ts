/**
 * A KB's document changes as they happen (status, stage, progress), for the GraphQL subscription
 * the dashboard listens to instead of re-reading whole pages. Ingestion runs in worker processes,
 * so changes are read from the database (progress is written there at most a few times a second):
 * each tick reads only the KB's processing documents and those updated since the last tick, and
 * yields the ones whose visible state changed. A document that settles is yielded once more, as
 * ready or failed, and then left alone. The stream completes once no document of the KB is
 * processing (a client subscribes again after its next upload), or after MAX_WATCH_MS.
 */
import { sql } from 'kysely';
import type { ServiceContext } from '../../context';
import { requireKb } from '../kbs/require-kb';
import { holdOrgStream } from '../org-share';
import { toDocumentDto, type DocumentDto } from './document-dto';
import { authorize } from '../access/roles';

export const WATCH_INTERVAL_MS = 500;
const MAX_WATCH_MS = 10 * 60_000;
/** Documents reported per tick at most (a bulk upload of thousands changes in waves). */
const MAX_PER_TICK = 200;

export async function watchDocuments(
  ctx: ServiceContext,
  kbId: string,
  signal: AbortSignal,
  intervalMs = WATCH_INTERVAL_MS,
): Promise<AsyncGenerator<DocumentDto[]>> {
  authorize(ctx, 'content.read');
  // Checked before the stream starts, so an unknown KB is an ordinary error, not a silent stream.
  const kb = await requireKb(ctx, kbId);
  const release = holdOrgStream(ctx);
  // Also on abort: a generator closed before its first step never runs its finally.
  signal.addEventListener('abort', release, { once: true });
  async function* changes(): AsyncGenerator<DocumentDto[]> {
    try {
      yield* watch();
    } finally {
      release();
    }
  }
  async function* watch(): AsyncGenerator<DocumentDto[]> {
    const seen = new Map<string, string>();
    // The database's clock, not ours: rows are stamped by whichever process wrote them.
    let since = (await sql<{ now: Date }>`select now() as now`.execute(ctx.db)).rows[0]!.now;
    const deadline = Date.now() + MAX_WATCH_MS;
    while (!signal.aborted && Date.now() < deadline) {
      const tickStart = (await sql<{ now: Date }>`select now() as now`.execute(ctx.db)).rows[0]!.now;
      const rows = await ctx.db
        .selectFrom('documents')
        .selectAll()
        .where('kb_id', '=', kb.id)
        .where((eb) => eb.or([eb('status', '=', 'processing'), eb('updated_at', '>=', since)]))
        .orderBy('updated_at')
        .limit(MAX_PER_TICK)
        .execute();
      since = tickStart;
      const changed: DocumentDto[] = [];
      for (const row of rows) {
        const dto = toDocumentDto(row);
        const state = JSON.stringify([dto.status, dto.stage, dto.progress, dto.chunk_count, dto.error, dto.updated_at]);
        if (seen.get(dto.id) === state) continue;
        // A settled document is not read again unless it changes: forget it, memory stays bounded.
        if (dto.status === 'processing') seen.set(dto.id, state);
        else seen.delete(dto.id);
        changed.push(dto);
      }
      if (changed.length > 0) yield changed;
      if (!rows.some((row) => row.status === 'processing')) return;
      await sleep(intervalMs, signal);
    }
  }
  return changes();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
