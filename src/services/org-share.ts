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

/**
 * Reads (lists of KBs, documents, chunks, conversations) have their own per-organisation line, so a
 * nested GraphQL read that fans out into hundreds of queries holds at most ORG_READ_CONCURRENCY of
 * the pool's connections (the embedded database has one session) while another organisation's read
 * starts at once. Separate from the retrieval line so a page of documents never waits behind searches.
 */
export const ORG_READ_CONCURRENCY = 2;
export const ORG_READ_QUEUE = 500;
const readLines = new Map<string, LimitFunction>();

export async function withOrgRead<T>(ctx: Pick<ServiceContext, 'org'>, work: () => Promise<T>): Promise<T> {
  const orgId = ctx.org.id;
  let limit = readLines.get(orgId);
  if (!limit) {
    limit = pLimit(ORG_READ_CONCURRENCY);
    readLines.set(orgId, limit);
  }
  if (limit.pendingCount >= ORG_READ_QUEUE) {
    throw new AppError('rate_limited', 'Too many reads in progress for this organisation; retry in 1s', { retryAfter: 1 });
  }
  const line = limit;
  try {
    return await line(work);
  } finally {
    if (line.activeCount === 0 && line.pendingCount === 0 && readLines.get(orgId) === line) readLines.delete(orgId);
  }
}

/** Long-lived streams (document watches) open at once per organisation in this process. */
export const ORG_STREAMS = 20;
const openStreams = new Map<string, number>();

/**
 * Holds one of the organisation's stream slots (each open watch reads the database twice a second,
 * so a key holder must not open thousands); the returned release is idempotent.
 */
export function holdOrgStream(ctx: Pick<ServiceContext, 'org'>): () => void {
  const orgId = ctx.org.id;
  const open = openStreams.get(orgId) ?? 0;
  if (open >= ORG_STREAMS) {
    throw new AppError('rate_limited', `At most ${ORG_STREAMS} live subscriptions at once for this organisation; close one first`, { retryAfter: 5 });
  }
  openStreams.set(orgId, open + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (openStreams.get(orgId) ?? 1) - 1;
    if (left <= 0) openStreams.delete(orgId);
    else openStreams.set(orgId, left);
  };
}
