/**
 * Each organisation's fair share of this process's expensive work (issue #15, noisy neighbour).
 * Retrieval (REST/tRPC/GraphQL search and chat, the widget, voice) and accepting a document (the
 * file written to the database) run at most ORG_CONCURRENCY at once per organisation; up to
 * ORG_QUEUE more wait in that organisation's own line, and beyond that the request is refused with
 * 429 and Retry-After. One organisation flooding (50 aliased searches per GraphQL request, uploads
 * in a loop) so waits behind itself, while another organisation's request starts at once instead of
 * queueing behind the flood in the database's FIFO (the embedded database is one session).
 *
 * Per process, in memory: the cross-process limit is the rate limit (src/http/rate-limit.ts), and
 * ingestion jobs have their own per-organisation lanes (src/jobs/enqueue.ts `orgQueue`).
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { ServiceContext } from '../context';
import { AppError } from '../errors';

export const ORG_CONCURRENCY = 2;
export const ORG_QUEUE = 50;

const lines = new Map<string, LimitFunction>();

export async function withOrgShare<T>(ctx: Pick<ServiceContext, 'org'>, work: () => Promise<T>): Promise<T> {
  const orgId = ctx.org.id;
  let limit = lines.get(orgId);
  if (!limit) {
    limit = pLimit(ORG_CONCURRENCY);
    lines.set(orgId, limit);
  }
  if (limit.pendingCount >= ORG_QUEUE) {
    throw new AppError('rate_limited', 'Too much work in progress for this organisation; retry in 1s', { retryAfter: 1 });
  }
  const line = limit;
  try {
    return await line(work);
  } finally {
    // Idle lines are dropped, so the map holds only organisations with work in progress.
    if (line.activeCount === 0 && line.pendingCount === 0 && lines.get(orgId) === line) lines.delete(orgId);
  }
}
