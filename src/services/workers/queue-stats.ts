/** The job queue as /metrics reports it, read from graphile-worker's tables. */
import { sql } from 'kysely';
import type { Db } from '../../../db/connect';
import { WORKER_STALE_MS } from './heartbeats';

export type QueueStats = { queued: number; locked: number; oldestQueuedSeconds: number; workerProcesses: number | null };

export async function queueStats(db: Db, opts: { heartbeats: boolean }): Promise<QueueStats> {
  const { rows } = await sql<{ queued: number; locked: number; oldest: number; workers: number }>`
    select count(*) filter (where ready)::int as queued,
           count(*) filter (where locked_at is not null)::int as locked,
           coalesce(extract(epoch from now() - min(run_at) filter (where ready)), 0)::float8 as oldest,
           (select count(*) from worker_heartbeats where beat_at > now() - ${`${WORKER_STALE_MS} milliseconds`}::interval)::int as workers
    from (select *, locked_at is null and run_at <= now() and attempts < max_attempts as ready from graphile_worker._private_jobs) jobs`.execute(db);
  const r = rows[0]!;
  return { queued: r.queued, locked: r.locked, oldestQueuedSeconds: r.oldest, workerProcesses: opts.heartbeats ? r.workers : null };
}
