/**
 * Crashed-worker recovery on PostgreSQL. Every worker process writes a heartbeat naming its
 * graphile-worker ids; every worker process also sweeps: a job (or named queue) locked by a worker
 * that no process with a fresh heartbeat names is unlocked, so another worker runs it again.
 * graphile-worker alone waits 4 hours, since on a shared database it cannot know who is alive.
 *
 * Worst case from a SIGKILL to another worker taking the job:
 *   WORKER_STALE_MS (20 s: the heartbeat goes stale) + STALE_SWEEP_MS (3 s: the next sweep)
 *   + the worker poll interval (2 s: unlocking does not NOTIFY) = 25 s, documented as "within 30 s".
 * A live worker is only mistaken for dead if it misses ten beats in a row (its event loop blocked
 * for 20 s: with a 10 s bound, one job ran twice in the Procfile test on a machine loaded twentyfold);
 * its job then runs twice, which ingestion tolerates (it replaces a document's chunks in one
 * transaction).
 */
import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { Db } from '../../../db/connect';

export const WORKER_BEAT_MS = 2_000;
export const WORKER_STALE_MS = 20_000;
export const STALE_SWEEP_MS = 3_000;
/** What the README promises: a dead worker's job is running again within this. */
export const CRASHED_JOB_RECOVERY_BOUND_MS = 30_000;

export type WorkerProcess = { processId: string; hostname: string; pid: number };

export function thisProcess(processId: string): WorkerProcess {
  return { processId, hostname: hostname(), pid: process.pid };
}

export async function beat(db: Db, proc: WorkerProcess, workerIds: string[]): Promise<void> {
  // The database's clock, not ours: processes on several machines compare beats.
  await db
    .insertInto('worker_heartbeats')
    .values({ process_id: proc.processId, worker_ids: workerIds, hostname: proc.hostname, pid: proc.pid })
    .onConflict((oc) => oc.column('process_id').doUpdateSet({ worker_ids: workerIds, beat_at: sql`now()` }))
    .execute();
}

export async function forgetProcess(db: Db, processId: string): Promise<void> {
  await db.deleteFrom('worker_heartbeats').where('process_id', '=', processId).execute();
}

export type Released = { jobs: number; queues: number };

/**
 * One statement, so one transaction. A lock younger than WORKER_STALE_MS is never touched: its
 * worker may have locked it before its process's first heartbeat landed. run_at is handled like
 * graphile-worker's own lock expiry. Heartbeats stale for a minute are deleted.
 */
export async function releaseJobsOfDeadWorkers(db: Db, staleMs = WORKER_STALE_MS): Promise<Released> {
  const stale = sql`now() - ${`${staleMs} milliseconds`}::interval`;
  const { rows } = await sql<Released>`
    with live as (
      select unnest(worker_ids) as worker_id from worker_heartbeats where beat_at > ${stale}
    ), jobs as (
      update graphile_worker._private_jobs
      set locked_at = null, locked_by = null, run_at = greatest(run_at, now())
      where locked_by is not null and locked_at < ${stale} and locked_by not in (select worker_id from live)
      returning 1
    ), queues as (
      update graphile_worker._private_job_queues
      set locked_at = null, locked_by = null
      where locked_by is not null and locked_at < ${stale} and locked_by not in (select worker_id from live)
      returning 1
    ), forgotten as (
      delete from worker_heartbeats where beat_at < now() - interval '1 minute' returning 1
    )
    select (select count(*) from jobs)::int as jobs, (select count(*) from queues)::int as queues,
           (select count(*) from forgotten)::int as forgotten`.execute(db);
  return rows[0]!;
}
